package dev.wirespeed.lab.result;

import java.util.List;
import java.util.Objects;

/**
 * A table as an experiment shows it on the terminal: a title, a header, rows of formatted cells (the
 * first column names the case) and notes under it.
 *
 * @param title what the table measures and how
 * @param header the column names
 * @param rows the cells, each row as wide as the header
 * @param notes lines printed under the table
 */
public record Table(String title, List<String> header, List<List<String>> rows, List<String> notes) {
    /**
     * Checks the shape and copies the lists.
     *
     * @throws IllegalArgumentException if a row is not as wide as the header
     */
    public Table {
        Objects.requireNonNull(title, "title");
        header = List.copyOf(header);
        rows = rows.stream().map(List::copyOf).toList();
        notes = List.copyOf(notes);
        for (List<String> row : rows) {
            if (row.size() != header.size()) {
                throw new IllegalArgumentException("table '" + title + "': a row of " + row.size() + " cells under "
                        + header.size() + " columns: " + row);
            }
        }
    }
}
