package dev.compactor.core.tokens;

/** Tokens estimated as code points divided by a chars-per-token ratio, rounded up. */
final class EstimateTokenizer implements TextTokenizer {
  private final double charsPerToken;

  EstimateTokenizer(double charsPerToken) {
    this.charsPerToken = charsPerToken;
  }

  @Override
  public int count(String text) {
    int chars = text.codePointCount(0, text.length());
    return (int) Math.ceil(chars / charsPerToken);
  }
}
