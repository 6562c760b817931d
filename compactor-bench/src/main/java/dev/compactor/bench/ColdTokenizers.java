package dev.compactor.bench;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingType;
import dev.compactor.core.tokens.TextTokenizer;
import dev.compactor.core.tokens.TokenizerFamily;

/**
 * jtokkit tokenizers with no cache of ours in front, for the "cold" benchmarks: a counter built on
 * one of these (with a name never used before) has to tokenize everything it is asked, as in a new
 * process. Wrapping a built-in counter's {@code countText} instead would reuse that counter's
 * short-text cache.
 */
final class ColdTokenizers {
  private ColdTokenizers() {}

  private static final EncodingRegistry REGISTRY = Encodings.newLazyEncodingRegistry();

  static TextTokenizer of(TokenizerFamily family) {
    EncodingType type =
        switch (family) {
          case CL100K_BASE -> EncodingType.CL100K_BASE;
          case O200K_BASE -> EncodingType.O200K_BASE;
          case ESTIMATE -> throw new IllegalArgumentException("an estimate has no BPE tokenizer");
        };
    return REGISTRY.getEncoding(type)::countTokensOrdinary;
  }
}
