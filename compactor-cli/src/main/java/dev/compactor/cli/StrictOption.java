package dev.compactor.cli;

import picocli.CommandLine.Option;

/**
 * {@code --strict} of the commands that read a transcript: refuse one with broken parts instead of
 * skipping or repairing them (see {@link ConversationInput#checked}).
 */
final class StrictOption {
  @Option(
      names = "--strict",
      description =
          "Refuse a transcript with broken parts (malformed lines, entries without a role, tool"
              + " results without their call, …) instead of skipping or repairing them.")
  boolean strict;
}
