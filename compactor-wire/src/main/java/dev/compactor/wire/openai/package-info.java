/**
 * The OpenAI shapes: Chat Completions messages ({@link
 * dev.compactor.wire.openai.ChatCompletionsMessages}) and Responses input items ({@link
 * dev.compactor.wire.openai.ResponsesItems}), read from request bodies and written for the API.
 */
package dev.compactor.wire.openai;
