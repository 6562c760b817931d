/**
 * Implementation shared by the codecs of compactor-wire (today: {@link
 * dev.compactor.wire.internal.TextParts}, how the text parts of a message become its content). Not
 * API: may change without notice, and an architecture test keeps every other module out of it.
 */
package dev.compactor.wire.internal;
