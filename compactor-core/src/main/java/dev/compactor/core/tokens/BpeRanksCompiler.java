package dev.compactor.core.tokens;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the compact form of the BPE ranks the counters use ({@code <encoding>.bpe}), run by the
 * build of compactor-core after compilation: {@code BpeRanksCompiler <classes directory>}. The
 * compact form holds the same ranks as the {@code .tiktoken} file it is made from; {@link
 * BpeRanks#load} reads it in a few milliseconds where parsing the rank file takes far longer in a
 * fresh process.
 */
final class BpeRanksCompiler {
  private BpeRanksCompiler() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      throw new IllegalArgumentException("usage: BpeRanksCompiler <classes directory>");
    }
    Path dir = Path.of(args[0]).resolve(BpeTokenizer.class.getPackageName().replace('.', '/'));
    Files.createDirectories(dir);
    for (BpeTokenizer.Encoding e : BpeTokenizer.Encoding.values()) {
      byte[] compact =
          BpeRanks.parse(BpeRanks.readRequired(e.tiktokenResource()), e.tiktokenResource())
              .toCompact();
      Files.write(dir.resolve(e.compactFileName()), compact);
    }
  }
}
