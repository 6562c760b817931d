package dev.compactor.replay.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.CompactorException;
import dev.compactor.core.message.Message;
import dev.compactor.core.sample.ConversationGenerator;
import dev.compactor.replay.ProgressListener;
import dev.compactor.replay.ReplayOptions;
import dev.compactor.replay.ReplayReport;
import dev.compactor.replay.ReplayRunner;
import dev.compactor.replay.ReplayStrategies;
import dev.compactor.wire.json.MessageCodec;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ContextChartTest {
  @TempDir static Path dir;
  static ReplayReport report;

  @BeforeAll
  static void replay() throws Exception {
    Path file = dir.resolve("session.jsonl");
    List<Message> messages =
        ConversationGenerator.generate(3, ConversationGenerator.Options.agentSession(80));
    StringBuilder sb = new StringBuilder();
    MessageCodec codec = new MessageCodec();
    for (Message m : messages) {
      sb.append(codec.writeLine(m)).append('\n');
    }
    Files.writeString(file, sb);
    ReplayStrategies s = ReplayStrategies.global();
    report =
        new ReplayRunner(ReplayOptions.defaults().withWindow(12_000L).withMaxOutput(2_000))
            .run(List.of(file), List.of(s.get("none"), s.get("auto")), ProgressListener.NONE);
  }

  @Test
  void png_isDrawnHeadless() throws Exception {
    Path png = dir.resolve("chart.png");
    ContextChart.write(report, png);
    BufferedImage img = ImageIO.read(png.toFile());
    assertThat(img.getWidth()).isEqualTo(1200);
    assertThat(img.getHeight()).isEqualTo(560);
  }

  @Test
  void html_hasOnePolylinePerStrategyAndTheBudgetLine() throws Exception {
    Path html = dir.resolve("chart.html");
    ContextChart.write(report, html);
    String s = Files.readString(html);
    assertThat(s).startsWith("<!DOCTYPE html>").contains("<svg").contains("budget");
    assertThat(s.split("<polyline", -1)).hasSize(3);
  }

  @Test
  void write_otherExtensionFails() {
    assertThatThrownBy(() -> ContextChart.write(report, dir.resolve("chart.gif")))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining(".png, .html or .svg");
  }

  @Test
  void tableAndJson_showEveryStrategy() {
    String table = ScoreTable.text(report.totals());
    assertThat(table).contains("none").contains("auto").contains("recall");
    assertThat(ScoreTable.markdown(report.totals())).startsWith("| strategy |");
    assertThat(ReplayJson.toJson(report, java.util.Map.of()))
        .contains("\"relativeToNone\"")
        .contains("\"overWindowCalls\"");
  }
}
