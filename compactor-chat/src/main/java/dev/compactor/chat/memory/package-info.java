/**
 * What the chat memories of the framework adapters ({@code compactor-langchain4j}, {@code
 * compactor-spring-ai}) share: one conversation of a memory with its session, journal and system
 * message ({@link dev.compactor.chat.memory.MemoryConversation}), and a framework's chat model seen
 * as a Compactor model for checkpoint summaries ({@link
 * dev.compactor.chat.memory.FrameworkChatModel}).
 */
package dev.compactor.chat.memory;
