package dev.compactor.log.store;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.Role;
import dev.compactor.core.view.View;
import java.nio.file.Path;
import java.util.List;

/**
 * Runs in a separate JVM for {@link StoredConversationProcessTest}.
 *
 * <ul>
 *   <li>{@code append <dir> <max>}: appends messages {@code m-0, m-1, …} and prints each id after
 *       {@code append} returned; after {@code m-19} it switches to a compacted view.
 *   <li>{@code open <dir>}: tries to open the directory and prints {@code OPENED} or {@code LOCKED
 *       <message>}.
 * </ul>
 */
public final class StoreChildMain {
  private StoreChildMain() {}

  /** Content of message {@code i}: deterministic, multi-line, non-ASCII, sizes up to ~40 KB. */
  static String content(int i) {
    return ("message " + i + " — ünïcödé ✓\n").repeat(1 + (i * 7919) % 1500);
  }

  public static void main(String[] args) {
    Path dir = Path.of(args[1]);
    switch (args[0]) {
      case "append" -> append(dir, Integer.parseInt(args[2]));
      case "open" -> {
        try (StoredConversation c = StoredConversation.open(dir)) {
          System.out.println("OPENED");
        } catch (ConversationLockedException e) {
          System.out.println("LOCKED " + e.getMessage());
        }
      }
      default -> throw new IllegalArgumentException("unknown mode " + args[0]);
    }
    System.out.flush();
  }

  private static void append(Path dir, int max) {
    StoredConversation c = StoredConversation.open(dir);
    for (int i = 0; i < max; i++) {
      Message m = Message.builder(Role.USER).id("m-" + i).content(content(i)).build();
      c.append(m);
      System.out.println(m.id());
      System.out.flush();
      if (i == 19) {
        c.switchTo(View.ofRefs(c.nextViewId(), List.of(MessageId.of("m-19"))));
      }
    }
    c.close();
  }
}
