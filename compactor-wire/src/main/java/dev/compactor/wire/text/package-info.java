/** How the text parts of a message become its content. */
package dev.compactor.wire.text;
