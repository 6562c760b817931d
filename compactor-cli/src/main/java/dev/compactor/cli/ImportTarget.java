package dev.compactor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.compactor.core.CompactorException;
import dev.compactor.log.imports.ImporterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.stream.Stream;

/**
 * Where a transcript's conversation directory is, and whether the one there can be used: an import
 * is written into a temporary directory beside the target ({@code .NAME.importing-*}) and renamed
 * into place only when the command succeeded, so a killed or failed import leaves nothing a later
 * run takes for a conversation. The directory records its source ({@code source}, {@code
 * source_size}, {@code source_sha256} in {@code settings.json}); a later run uses it only while the
 * file is unchanged.
 */
final class ImportTarget {
  static final String SOURCE = "source";
  static final String SOURCE_SIZE = "source_size";
  static final String SOURCE_SHA256 = "source_sha256";
  static final String FORMAT = "format";
  private static final String MASTER = "conversation.jsonl";
  private static final String LOCK = ".lock";

  private ImportTarget() {}

  /** Size and SHA-256 of a file's bytes as stored (a .gz file's compressed bytes). */
  record Fingerprint(long size, String sha256) {
    static Fingerprint of(Path file) {
      try (InputStream in = Files.newInputStream(file)) {
        MessageDigest d = MessageDigest.getInstance("SHA-256");
        byte[] buf = new byte[1 << 16];
        long size = 0;
        for (int n; (n = in.read(buf)) > 0; ) {
          d.update(buf, 0, n);
          size += n;
        }
        return new Fingerprint(size, HexFormat.of().formatHex(d.digest()));
      } catch (IOException e) {
        throw new CompactorException("cannot read " + file + ": " + ImporterRegistry.why(e));
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /**
   * What to do for {@code file} and the directory {@code dir}.
   *
   * @param reuse the directory holds this file's conversation, unchanged since its import
   * @param replace the directory holds an older import of this file (replaced: {@code --reimport})
   * @param fingerprint the file's, when it was computed
   */
  record Plan(Path dir, boolean reuse, boolean replace, Fingerprint fingerprint) {}

  /**
   * Decides what to do for {@code file} into {@code dir}.
   *
   * @param conversation the {@code --conversation} name, or null
   * @param reimport whether a changed source may replace the directory
   * @throws CompactorException when {@code dir} is a file, a non-empty directory that is not a
   *     conversation directory, another source's conversation, or an import of {@code file} that it
   *     no longer matches (without {@code reimport})
   */
  static Plan plan(Path file, Path dir, String conversation, boolean reimport) {
    if (!Files.exists(dir)) {
      return new Plan(dir, false, false, null);
    }
    if (!Files.isDirectory(dir)) {
      throw new CompactorException(
          dir + " is a file, not a conversation directory; choose another --out");
    }
    if (!Files.exists(dir.resolve(MASTER))) {
      if (isEmpty(dir)) {
        return new Plan(dir, false, false, null);
      }
      throw new CompactorException(
          dir
              + " is a non-empty directory that is not a conversation directory (it has no "
              + MASTER
              + "); choose another --out");
    }
    JsonNode settings = settings(dir);
    String source = settings.path(SOURCE).asText(null);
    String here = file.toAbsolutePath().normalize().toString();
    int hash = source == null ? -1 : source.lastIndexOf('#');
    String sourceFile = hash < 0 ? source : source.substring(0, hash);
    String sourceName = hash < 0 ? null : source.substring(hash + 1);
    if (!here.equals(sourceFile) || (conversation != null && !conversation.equals(sourceName))) {
      throw new CompactorException(
          dir
              + " already holds another conversation (imported from "
              + (source == null ? "no file: it has no " + SOURCE + " setting" : source)
              + "); choose another --out");
    }
    String size = settings.path(SOURCE_SIZE).asText(null);
    String sha = settings.path(SOURCE_SHA256).asText(null);
    if (size == null || sha == null) {
      if (reimport) {
        return new Plan(dir, false, true, null);
      }
      throw new CompactorException(
          dir
              + " holds an import of "
              + file
              + " without a record of the file's size and digest, so whether the file changed"
              + " since is unknown; pass --reimport to replace it with a fresh import (its views"
              + " and journal go with it), or choose another --out");
    }
    Fingerprint now = Fingerprint.of(file);
    if (size.equals(Long.toString(now.size())) && sha.equals(now.sha256())) {
      return new Plan(dir, true, false, now);
    }
    if (reimport) {
      return new Plan(dir, false, true, now);
    }
    throw new CompactorException(
        file
            + " changed since it was imported into "
            + dir
            + " ("
            + size
            + " bytes, sha256 "
            + sha.substring(0, Math.min(12, sha.length()))
            + "…; now "
            + now.size()
            + " bytes, sha256 "
            + now.sha256().substring(0, 12)
            + "…); pass --reimport to replace it with a fresh import (its views and journal go"
            + " with it), or choose another --out");
  }

  private static JsonNode settings(Path dir) {
    Path f = dir.resolve("settings.json");
    try {
      return new ObjectMapper().readTree(Files.readAllBytes(f));
    } catch (NoSuchFileException e) {
      return new ObjectMapper().createObjectNode();
    } catch (IOException e) {
      throw new CompactorException("cannot read " + f + ": " + ImporterRegistry.why(e));
    }
  }

  private static boolean isEmpty(Path dir) {
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
      return !s.iterator().hasNext();
    } catch (IOException e) {
      throw new CompactorException("cannot list " + dir + ": " + e.getMessage());
    }
  }

  private static Path parent(Path dir) {
    Path p = dir.toAbsolutePath().normalize().getParent();
    if (p == null) {
      throw new CompactorException("cannot import into " + dir + ": it has no parent directory");
    }
    return p;
  }

  private static String prefix(Path dir) {
    return "." + dir.toAbsolutePath().normalize().getFileName() + ".importing-";
  }

  /**
   * A new temporary directory beside {@code dir} to import into, after removing the ones that
   * killed imports into {@code dir} left (no process holds their lock).
   */
  static Path temporary(Path dir) {
    Path parent = parent(dir);
    try {
      Files.createDirectories(parent);
      removeAbandoned(parent, prefix(dir));
      return Files.createTempDirectory(parent, prefix(dir));
    } catch (IOException e) {
      throw new CompactorException(
          "cannot create a directory in " + parent + ": " + e.getMessage());
    }
  }

  private static void removeAbandoned(Path parent, String prefix) throws IOException {
    try (DirectoryStream<Path> s = Files.newDirectoryStream(parent, prefix + "*")) {
      for (Path p : s) {
        if (Files.isDirectory(p) && abandoned(p)) {
          deleteQuietly(p);
        }
      }
    }
  }

  /** No process holds its lock (or it never got one and is older than a minute). */
  private static boolean abandoned(Path temp) {
    Path lock = temp.resolve(LOCK);
    if (!Files.exists(lock)) {
      try {
        FileTime t = Files.getLastModifiedTime(temp);
        return t.toInstant().isBefore(Instant.now().minus(Duration.ofMinutes(1)));
      } catch (IOException e) {
        return false;
      }
    }
    try (FileChannel ch = FileChannel.open(lock, StandardOpenOption.WRITE)) {
      FileLock l = ch.tryLock();
      if (l == null) {
        return false;
      }
      l.release();
      return true;
    } catch (OverlappingFileLockException e) {
      return false; // open in this JVM
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Renames the finished import {@code temp} into place as {@code plan.dir()} (replacing the older
   * import for {@code --reimport}).
   */
  static void commit(Path temp, Plan plan) {
    Path dir = plan.dir().toAbsolutePath().normalize();
    try {
      if (plan.replace()) {
        Path old = Files.createTempDirectory(parent(dir), "." + dir.getFileName() + ".replaced-");
        Files.delete(old);
        Files.move(dir, old, StandardCopyOption.ATOMIC_MOVE);
        Files.move(temp, dir, StandardCopyOption.ATOMIC_MOVE);
        deleteQuietly(old);
      } else {
        if (Files.isDirectory(dir) && isEmpty(dir)) {
          Files.delete(dir);
        }
        Files.move(temp, dir, StandardCopyOption.ATOMIC_MOVE);
      }
      syncDirectory(parent(dir));
    } catch (IOException e) {
      throw new CompactorException(
          "cannot move the import " + temp + " into place as " + dir + ": " + e.getMessage());
    }
  }

  private static void syncDirectory(Path dir) {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException | UnsupportedOperationException e) {
      // Not every platform can sync a directory; the rename itself is atomic.
    }
  }

  /** Removes a directory tree, ignoring what cannot be removed. */
  static void deleteQuietly(Path root) {
    if (root == null || !Files.exists(root)) {
      return;
    }
    try (Stream<Path> s = Files.walk(root)) {
      s.sorted(Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.deleteIfExists(p);
                } catch (IOException e) {
                  // best effort
                }
              });
    } catch (IOException | UncheckedIOException e) {
      // best effort
    }
  }
}
