package dev.compactor.chat.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.chat.base.ChatTaskException;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/** Assertions about the chat task service's failures. */
public final class ChatTaskAssertions {
  private ChatTaskAssertions() {}

  /**
   * {@code call} fails with a {@link ChatTaskException} of {@code code} whose message contains each
   * of {@code parts} (at least one).
   */
  public static void assertFailsWith(
      ThrowingCallable call, ChatTaskException.Code code, String... parts) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(
            ChatTaskException.class,
            e -> {
              assertThat(e.code()).isEqualTo(code);
              assertThat(e.getMessage()).contains(parts);
            });
  }
}
