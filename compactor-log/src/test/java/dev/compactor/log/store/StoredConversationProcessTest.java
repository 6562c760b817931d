package dev.compactor.log.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.wire.json.MessageCodec;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Behaviour across processes: a writer killed mid-append, and a second writer. */
class StoredConversationProcessTest {
  @TempDir Path dir;

  private static Process startChild(String... args) throws IOException {
    Set<String> cp = new LinkedHashSet<>();
    for (Class<?> c :
        List.of(
            StoreChildMain.class,
            StoredConversation.class,
            MessageCodec.class,
            Message.class,
            ObjectMapper.class,
            JsonParser.class,
            JsonProperty.class)) {
      try {
        cp.add(Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
      } catch (URISyntaxException e) {
        throw new IllegalStateException(e);
      }
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(List.of("-Xmx128m", "-XX:TieredStopAtLevel=1", "-Xshare:auto"));
    cmd.addAll(List.of("-cp", String.join(File.pathSeparator, cp)));
    cmd.add(StoreChildMain.class.getName());
    cmd.addAll(List.of(args));
    return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
  }

  @Test
  @Timeout(60)
  void killedWriter_everyAcknowledgedMessageSurvives_andTheLogReopensValid() throws Exception {
    Process child = startChild("append", dir.toString(), "100000");
    List<String> acknowledged = new ArrayList<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while (acknowledged.size() < 150
          && System.nanoTime() < deadline
          && (line = out.readLine()) != null) {
        acknowledged.add(line);
      }
      // SIGKILL: no shutdown hooks, no close(). Through the handle, which (unlike
      // Process.destroyForcibly) leaves the pipe open, so ids printed before the kill can be read.
      child.toHandle().destroyForcibly();
      assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
      // ids printed after our last read were acknowledged too
      while ((line = out.readLine()) != null) {
        acknowledged.add(line);
      }
    }
    assertThat(acknowledged)
        .as("the child acknowledged appends before the kill")
        .hasSizeGreaterThan(25);

    MessageCodec codec = new MessageCodec();
    try (StoredConversation c = StoredConversation.open(dir)) {
      List<Message> stored = c.master().messages();
      assertThat(stored.size()).isGreaterThanOrEqualTo(acknowledged.size());
      for (int i = 0; i < stored.size(); i++) {
        // no gaps, no reordering, exact content
        assertThat(stored.get(i).id().value()).isEqualTo("m-" + i);
        assertThat(stored.get(i).content()).isEqualTo(StoreChildMain.content(i));
      }
      assertThat(c.activeView().id()).isEqualTo("compacted-001");
      List<String> active = c.activeMessages().stream().map(m -> m.id().value()).toList();
      assertThat(active).containsAll(acknowledged.subList(19, acknowledged.size()));
      assertThat(active).hasSize(stored.size() - 19);
      assertThat(c.recover(MessageId.of("m-3")).get(0).content())
          .isEqualTo(StoreChildMain.content(3));
    }
    // after the repair every line of the master file is a complete message
    List<String> lines = Files.readAllLines(dir.resolve("conversation.jsonl"));
    for (int i = 0; i < lines.size(); i++) {
      assertThat(codec.readLine(lines.get(i)).id().value()).isEqualTo("m-" + i);
    }
    assertThat(Files.readString(dir.resolve("conversation.jsonl"))).endsWith("\n");
  }

  @Test
  @Timeout(60)
  void secondProcess_getsLockedError_whileTheFirstHoldsTheDirectory() throws Exception {
    try (StoredConversation first = StoredConversation.open(dir)) {
      first.append(Message.user("hello"));
      String result = runToEnd(startChild("open", dir.toString()));
      assertThat(result).startsWith("LOCKED").contains(dir.toAbsolutePath().toString());
      assertThat(first.master().size()).isEqualTo(1);
    }
    assertThat(runToEnd(startChild("open", dir.toString()))).isEqualTo("OPENED");
  }

  @Test
  @Timeout(60)
  void failedSecondOpenInThisJvm_doesNotReleaseTheFirstOnesLock() throws Exception {
    try (StoredConversation first = StoredConversation.open(dir)) {
      assertThatThrownBy(() -> StoredConversation.open(dir))
          .isInstanceOf(ConversationLockedException.class);
      String result = runToEnd(startChild("open", dir.toString()));
      assertThat(result).startsWith("LOCKED");
      first.append(Message.user("still mine"));
    }
  }

  private static String runToEnd(Process p) throws Exception {
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("child output: " + out).isZero();
    return out;
  }
}
