package dev.compactor.models.internal;

import dev.compactor.core.message.Message;
import dev.compactor.core.model.ModelException;
import java.time.Duration;

/** Maps a provider's failure to the model exception family. Implementations are thread-safe. */
public interface ErrorMapper {
  /**
   * The exception for an HTTP error response.
   *
   * @param status the HTTP status (not 2xx)
   * @param body the response body, possibly empty or not JSON
   * @param retryAfter the wait the response asked for, or null
   * @param model the model the request asked for, or null
   * @param partial output received before the failure, or null
   */
  ModelException fromHttp(
      int status, String body, Duration retryAfter, String model, Message partial);

  /**
   * The exception for an error reported with HTTP 200: an {@code error} event inside a stream, or
   * an error object in a 2xx body.
   *
   * @param eventJson the event's (or body's) JSON text
   */
  ModelException fromStreamEvent(String eventJson, String model, Message partial);

  /** The provider name used in exceptions. */
  String provider();

  /** The redactor applied to every message and excerpt. */
  Redactor redactor();
}
