package dev.wirespeed.lab.report;

import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.SetAside;
import dev.wirespeed.lab.result.Table;
import java.io.PrintWriter;
import java.util.List;

/**
 * What the terminal shows of a lab run: each experiment's tables as it finishes, then findings, the rows
 * set aside and notes.
 */
public final class Console {
    private Console() {
    }

    /**
     * Prints a table: the first column left-aligned, the others right-aligned, each as wide as its widest cell.
     *
     * @param table the table
     * @param out where to print
     */
    public static void print(Table table, PrintWriter out) {
        int[] widths = new int[table.header().size()];
        for (List<String> row : concat(table.header(), table.rows())) {
            for (int i = 0; i < row.size(); i++) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        out.println();
        out.println(table.title());
        for (List<String> row : concat(table.header(), table.rows())) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.size(); i++) {
                String cell = row.get(i);
                String pad = " ".repeat(widths[i] - cell.length());
                line.append(i == 0 ? "  " + cell + pad : "  " + pad + cell);
            }
            out.println(line.toString().stripTrailing());
        }
        for (String note : table.notes()) {
            out.println("  " + note);
        }
        out.flush();
    }

    private static List<List<String>> concat(List<String> header, List<List<String>> rows) {
        List<List<String>> all = new java.util.ArrayList<>();
        all.add(header);
        all.addAll(rows);
        return all;
    }

    /**
     * Prints the findings, those that do not hold marked, each with its figures in brief (the failing
     * checks, or the worst one; every check is in results.json and the report), then the rows set aside
     * with why, then the notes.
     *
     * @param report the run's report
     * @param out where to print
     */
    public static void printFindings(LabReport report, PrintWriter out) {
        if (!report.findings().isEmpty()) {
            out.println();
            out.println("findings:");
            for (Finding finding : report.findings()) {
                out.printf("  [%s] %s (%s)%n         %s%n", finding.holds() ? "holds" : "DOES NOT HOLD", finding.title(),
                        finding.experiment(), finding.summary());
            }
        }
        if (!report.setAside().isEmpty()) {
            out.println();
            out.println("set aside, judging nothing:");
            for (SetAside row : report.setAside()) {
                out.printf("  %s (%s)%n", row, row.experiment());
            }
        }
        for (String note : report.notes()) {
            out.println("note: " + note);
        }
        out.flush();
    }
}
