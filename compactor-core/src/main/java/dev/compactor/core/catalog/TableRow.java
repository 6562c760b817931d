package dev.compactor.core.catalog;

import java.util.ArrayList;
import java.util.List;

/**
 * A row of a catalog table ({@code models.tsv}, {@code prices.tsv} and their user-supplied
 * counterparts): one entry a line, columns separated by white space, {@code #} starting a comment
 * line.
 *
 * @param where {@code "<source> line <n>"}, the start of every error message about the row
 * @param line the line, stripped
 * @param fields its columns
 */
record TableRow(String where, String line, String[] fields) {

  /** The rows of {@code text}, skipping blank and comment lines; {@code source} names it. */
  static List<TableRow> parse(String text, String source) {
    List<TableRow> rows = new ArrayList<>();
    String[] lines = text.split("\r?\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].strip();
      if (!line.isEmpty() && !line.startsWith("#")) {
        rows.add(new TableRow(source + " line " + (i + 1), line, line.split("\\s+")));
      }
    }
    return rows;
  }
}
