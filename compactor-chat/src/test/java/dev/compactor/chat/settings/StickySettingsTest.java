package dev.compactor.chat.settings;

import static dev.compactor.chat.testing.ChatTaskAssertions.assertFailsWith;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.chat.base.ChatTaskException;
import dev.compactor.chat.settings.SummarySettings.MainSystemMessage;
import dev.compactor.core.catalog.ModelCatalog;
import dev.compactor.core.message.Role;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class StickySettingsTest {
  private static final ModelCatalog CATALOG = ModelCatalog.builtIn();

  private static StickySettings merge(StickySettings s, String patch) {
    return s.merge(StickySettings.patch(patch), CATALOG);
  }

  private static StickySettings of(String patch) {
    return merge(StickySettings.NONE, patch);
  }

  private static void assertInvalid(String patch, String... messageParts) {
    assertFailsWith(() -> of(patch), ChatTaskException.Code.INVALID_SETTINGS, messageParts);
  }

  @Test
  void none_hasNoKinds_andNoReport() {
    assertThat(StickySettings.NONE.effective().exists()).isFalse();
    assertThat(StickySettings.NONE.isEmpty()).isTrue();
    assertThat(StickySettings.fromJson(null)).isEqualTo(StickySettings.NONE);
  }

  @Test
  void summaryGivenEmpty_isEnabledWithEveryDefault() {
    SummarySettings s = of("{\"summary\": {}}").effective().summary();
    assertThat(s).isEqualTo(SummarySettings.DEFAULTS);
    assertThat(s.enabled()).isTrue();
    assertThat(s.activation().messageCount()).isEqualTo(100);
    assertThat(s.activation().tokenCount()).isNull();
    assertThat(s.messageSelection().mainSystemMessage()).isEqualTo(MainSystemMessage.EXCLUDE);
    assertThat(s.messageSelection().keepLastMessages()).isEqualTo(10);
    assertThat(s.summarization().model()).isNull();
    assertThat(s.summarization().maxOutputTokens()).isEqualTo(1024);
    assertThat(s.injection().role()).isEqualTo(Role.SYSTEM);
    assertThat(of("{\"summary\": {}}").effective().provider()).isNull();
  }

  @Test
  void everyFieldIsRead() {
    SummarySettings s =
        of("""
            {"summary": {"enabled": true,
              "activation": {"message_count": 50, "token_count": "120_000"},
              "message_selection": {"main_system_message": "include", "keep_last_messages": 0},
              "summarization": {"model": "anthropic/claude-haiku-4-5", "instructions": "Be short.",
                                "max_output_tokens": 256},
              "injection": {"role": "user", "template": "Before: {{summary}}"}}}
            """)
            .effective()
            .summary();
    assertThat(s.activation().messageCount()).isEqualTo(50);
    assertThat(s.activation().tokenCount()).isEqualTo(120_000L);
    assertThat(s.messageSelection().mainSystemMessage()).isEqualTo(MainSystemMessage.INCLUDE);
    assertThat(s.messageSelection().keepLastMessages()).isZero();
    assertThat(s.summarization().model()).isEqualTo("anthropic/claude-haiku-4-5");
    assertThat(s.summarization().instructions()).isEqualTo("Be short.");
    assertThat(s.summarization().maxOutputTokens()).isEqualTo(256);
    assertThat(s.injection().role()).isEqualTo(Role.USER);
    assertThat(s.injection().render("X")).isEqualTo("Before: X");
  }

  @Test
  void merge_partialUpdateKeepsTheRest_nullResetsAField() {
    StickySettings s =
        of(
            """
            {"summary": {"activation": {"message_count": 40},
                         "message_selection": {"keep_last_messages": 4}}}
            """);
    StickySettings changed =
        merge(s, "{\"summary\": {\"message_selection\": {\"keep_last_messages\": 6}}}");
    assertThat(changed.effective().summary().activation().messageCount()).isEqualTo(40);
    assertThat(changed.effective().summary().messageSelection().keepLastMessages()).isEqualTo(6);

    StickySettings reset =
        merge(changed, "{\"summary\": {\"activation\": {\"message_count\": null}}}");
    assertThat(reset.effective().summary().activation().messageCount()).isEqualTo(100);
    assertThat(reset.effective().summary().messageSelection().keepLastMessages()).isEqualTo(6);
    assertThat(reset.toJson()).doesNotContain("message_count");
  }

  @Test
  void merge_enabledFalseKeepsTheRest_enabledTrueAloneSwitchesBackOn() {
    StickySettings s = of("{\"summary\": {\"activation\": {\"message_count\": 30}}}");
    StickySettings off = merge(s, "{\"summary\": {\"enabled\": false}}");
    assertThat(off.effective().summary().enabled()).isFalse();
    assertThat(off.effective().summary().activation().messageCount()).isEqualTo(30);

    StickySettings on = merge(off, "{\"summary\": {\"enabled\": true}}");
    assertThat(on.effective().summary()).isEqualTo(s.effective().summary());
  }

  @Test
  void merge_nullKindRemovesIt_andNullCompactionRemovesEverything() {
    StickySettings s =
        of("{\"summary\": {\"enabled\": false}, \"provider\": {\"compact_threshold\": 5000}}");
    assertThat(merge(s, "{\"summary\": null}").effective().summary()).isNull();
    assertThat(merge(s, "{\"summary\": null}").effective().provider().compactThreshold())
        .isEqualTo(5000);
    assertThat(s.merge(com.fasterxml.jackson.databind.node.NullNode.instance, CATALOG))
        .isEqualTo(StickySettings.NONE);
    assertThat(s.merge(null, CATALOG)).isSameAs(s);
  }

  @Test
  void storedForm_isSparseAndNormalized_andReadsBackEqual() {
    StickySettings s = of("{\"provider\": {\"compact_threshold\": \"1_000_000\"}}");
    assertThat(s.toJson()).isEqualTo("{\"provider\":{\"compact_threshold\":1000000}}");
    assertThat(StickySettings.fromJson(s.toJson())).isEqualTo(s);
    assertThat(s.effective().provider().enabled()).isTrue();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "1000|1000",
        "200000|200000",
        "\"200_000\"|200000",
        "\"1_000\"|1000",
        "\"2147483647\"|2147483647"
      })
  void compactThreshold_acceptsWholeNumbersAndUnderscoredStrings(String json, int expected) {
    assertThat(
            of("{\"provider\": {\"compact_threshold\": " + json + "}}")
                .effective()
                .provider()
                .compactThreshold())
        .isEqualTo(expected);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "999",
        "0",
        "-5",
        "1500.5",
        "1e6",
        "\"abc\"",
        "\"200__000\"",
        "\"_200000\"",
        "\"200000_\"",
        "\"-2000\"",
        "\" 2000\"",
        "true",
        "[2000]",
        "{}",
        "\"\"",
        "2147483648"
      })
  void compactThreshold_rejectsEverythingElse_namingTheValue(String json) {
    assertInvalid(
        "{\"provider\": {\"compact_threshold\": " + json + "}}",
        "compaction.provider.compact_threshold");
  }

  @Test
  void compactThreshold_belowTheProvidersMinimum_isRejected() {
    assertInvalid("{\"provider\": {\"compact_threshold\": 999}}", "999", ">= 1000");
  }

  @Test
  void unknownFields_areRejectedAtEveryLevel_namingThePath() {
    assertInvalid("{\"sumary\": {}}", "compaction.sumary", "summary, provider");
    assertInvalid("{\"summary\": {\"activaton\": {}}}", "compaction.summary.activaton");
    assertInvalid(
        "{\"summary\": {\"activation\": {\"messages\": 3}}}",
        "compaction.summary.activation.messages");
    assertInvalid("{\"provider\": {\"threshold\": 3000}}", "compaction.provider.threshold");
    assertInvalid("{\"summary\": {\"foo\": null}}", "compaction.summary.foo");
  }

  @Test
  void wrongTypes_areRejected_namingFieldAndValue() {
    assertInvalid("{\"summary\": {\"enabled\": \"yes\"}}", "compaction.summary.enabled", "\"yes\"");
    assertInvalid("{\"summary\": true}", "compaction.summary", "object");
    assertInvalid("[1]", "compaction", "object");
    assertInvalid(
        "{\"summary\": {\"message_selection\": {\"main_system_message\": \"drop\"}}}",
        "main_system_message",
        "\"exclude\", \"include\"");
    assertInvalid(
        "{\"summary\": {\"message_selection\": {\"keep_last_messages\": -1}}}",
        "keep_last_messages");
    assertInvalid("{\"summary\": {\"injection\": {\"role\": \"assistant\"}}}", "injection.role");
    assertInvalid(
        "{\"summary\": {\"injection\": {\"template\": \"no placeholder\"}}}", "{{summary}}");
    assertInvalid("{\"summary\": {\"summarization\": {\"instructions\": \"  \"}}}", "instructions");
    assertInvalid(
        "{\"summary\": {\"summarization\": {\"max_output_tokens\": 0}}}", "max_output_tokens");
    assertInvalid("{\"summary\": {\"activation\": {\"message_count\": true}}}", "message_count");
  }

  @Test
  void summarizationModel_mustBeKnownToTheCatalog() {
    assertInvalid(
        "{\"summary\": {\"summarization\": {\"model\": \"openai/gpt-99-turbo\"}}}",
        "compaction.summary.summarization.model",
        "gpt-99-turbo",
        "catalog");
    assertThat(
            of("{\"summary\": {\"summarization\": {\"model\": \"openai/gpt-4o-mini-2024-07-18\"}}}")
                .effective()
                .summary()
                .summarization()
                .model())
        .isEqualTo("openai/gpt-4o-mini-2024-07-18");
  }

  @Test
  void bothKindsEnabled_isRejected_alsoWhenTheMergeWouldEnableBoth() {
    assertInvalid("{\"summary\": {}, \"provider\": {}}", "both enabled");
    StickySettings provider = of("{\"provider\": {\"compact_threshold\": 5000}}");
    assertThatThrownBy(() -> merge(provider, "{\"summary\": {}}"))
        .isInstanceOf(ChatTaskException.class)
        .hasMessageContaining("one or the other");
    assertThat(
            merge(provider, "{\"summary\": {}, \"provider\": {\"enabled\": false}}")
                .effective()
                .summary()
                .enabled())
        .isTrue();
  }

  @Test
  void enabledSummary_withBothThresholdsOff_isRejected_butMayBeStoredSwitchedOff() {
    assertInvalid("{\"summary\": {\"activation\": {\"message_count\": false}}}", "would never run");
    StickySettings off =
        of("{\"summary\": {\"enabled\": false, \"activation\": {\"message_count\": false}}}");
    assertThat(off.effective().summary().activation().messageCount()).isNull();
  }

  @Test
  void invalidPatch_leavesTheSettingsItWasMergedIntoUntouched() {
    StickySettings s = of("{\"summary\": {\"activation\": {\"message_count\": 30}}}");
    String before = s.toJson();
    assertThatThrownBy(
            () ->
                merge(
                    s,
                    "{\"summary\": {\"activation\": {\"message_count\": 5}, \"enabled\": \"no\"}}"))
        .isInstanceOf(ChatTaskException.class);
    assertThat(s.toJson()).isEqualTo(before);
  }

  @Test
  void effectiveJson_listsEveryFieldWithItsDefault() {
    var json =
        StickySettings.effectiveJson(
            of("{\"summary\": {}, \"provider\": {\"enabled\": false}}").effective());
    assertThat(json.at("/summary/activation/message_count").asInt()).isEqualTo(100);
    assertThat(json.at("/summary/activation/token_count").asBoolean(true)).isFalse();
    assertThat(json.at("/summary/summarization/model").isNull()).isTrue();
    assertThat(json.at("/summary/injection/template").asText()).contains("{{summary}}");
    assertThat(json.at("/provider/compact_threshold").isNull()).isTrue();
    assertThat(StickySettings.knownPaths())
        .contains(
            "compaction.summary.enabled",
            "compaction.summary.activation.message_count",
            "compaction.summary.activation.token_count",
            "compaction.summary.message_selection.main_system_message",
            "compaction.summary.message_selection.keep_last_messages",
            "compaction.summary.summarization.model",
            "compaction.summary.summarization.instructions",
            "compaction.summary.summarization.max_output_tokens",
            "compaction.summary.injection.role",
            "compaction.summary.injection.template",
            "compaction.provider.enabled",
            "compaction.provider.compact_threshold")
        .hasSize(12);
  }
}
