package dev.compactor.chat.store;

/**
 * What a call does with a chat while the store holds it locked: reads the snapshot, decides, and
 * returns the update to apply (or none) with a value for the caller. Throwing aborts: nothing is
 * stored.
 *
 * @param <T> the value handed back to the caller of {@link ChatStore#update}
 */
@FunctionalInterface
public interface ChatWork<T> {
  /**
   * @param current the chat as stored when the lock was taken
   * @return the update and the caller's value
   */
  Outcome<T> run(ChatSnapshot current);

  /**
   * The result of a {@link ChatWork}.
   *
   * @param update what to store, or null to store nothing
   * @param value handed back by {@link ChatStore#update}
   */
  record Outcome<T>(ChatUpdate update, T value) {
    /** Store {@code update}, return {@code value}. */
    public static <T> Outcome<T> of(ChatUpdate update, T value) {
      return new Outcome<>(update, value);
    }

    /** Store nothing, return {@code value}. */
    public static <T> Outcome<T> unchanged(T value) {
      return new Outcome<>(null, value);
    }
  }
}
