package dev.compactor.core.model;

/** The provider does not know the requested model (404 {@code model_not_found} and the like). */
public class UnknownModelException extends NonRetryableModelException {
  private static final long serialVersionUID = 1L;

  private final String model;

  /**
   * @param model the model that was asked for, or null when unknown
   */
  public UnknownModelException(String message, ModelError error, String model, Throwable cause) {
    super(message, error, null, cause);
    this.model = model;
  }

  /** The model that was asked for, or null. */
  public String model() {
    return model;
  }
}
