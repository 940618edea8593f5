package dev.wirespeed.lab.report;

import dev.wirespeed.lab.experiment.Outcome;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.SetAside;
import dev.wirespeed.lab.result.Table;
import java.util.List;

/**
 * {@code results.md}: a lab run's tables and findings in Markdown (GitHub's tables), under a header
 * that names the command, commit, date, mode, machine and JDK they were measured with. It is the
 * page {@code ./wirespeed lab --out docs/results/latest} writes into the repository's documentation,
 * and what to paste into an issue.
 */
public final class ReportMarkdown {
    private ReportMarkdown() {
    }

    /**
     * {@return the run in Markdown}: a heading with the mode, a header naming the command, commit,
     * date, machine and JDK, each experiment's tables in report order (the first column left-aligned,
     * the others right-aligned, as the terminal shows them), then the findings, the rows set aside (a
     * table per experiment: row, placement, reason) and the notes
     *
     * @param report the run's report
     * @param outcomes the experiments' outcomes, whose tables the report does not keep
     */
    public static String render(LabReport report, List<Outcome> outcomes) {
        StringBuilder md = new StringBuilder();
        md.append("## wirespeed lab (").append(report.mode().id()).append(")\n\n");
        header(report, md);
        for (Outcome outcome : outcomes) {
            md.append("\n### `").append(outcome.experiment()).append("`: ").append(cell(outcome.description())).append("\n");
            for (Table table : outcome.tables()) {
                table(table, md);
            }
        }
        if (!report.findings().isEmpty()) {
            md.append("\n### Findings\n\n| experiment | claim | figures | verdict |\n| --- | --- | --- | --- |\n");
            for (Finding finding : report.findings()) {
                md.append("| ").append(cell(finding.experiment())).append(" | ").append(cell(finding.title())).append(" | ")
                        .append(cell(finding.figures())).append(" | ")
                        .append(finding.holds() ? "holds" : "**does not hold**").append(" |\n");
            }
        }
        setAside(report, md);
        if (!report.notes().isEmpty()) {
            md.append("\n### Notes\n\n");
            for (String note : report.notes()) {
                md.append("- ").append(cell(note)).append('\n');
            }
        }
        return md.toString();
    }

    /** The rows set aside, a table per experiment in report order; none, no section. */
    private static void setAside(LabReport report, StringBuilder md) {
        if (report.setAside().isEmpty()) {
            return;
        }
        md.append("\n### Rows set aside\n\nThe lab does not trust these rows: no finding is judged on them, and the "
                + "notes name each finding left out.\n");
        for (LabReport.Experiment experiment : report.experiments()) {
            List<SetAside> rows = report.setAside().stream().filter(s -> s.experiment().equals(experiment.name()))
                    .toList();
            if (rows.isEmpty()) {
                continue;
            }
            md.append("\n**`").append(experiment.name()).append("`**\n\n| row | placement | reason |\n| --- | --- | --- |\n");
            for (SetAside row : rows) {
                md.append("| ").append(cell(row.name())).append(" | ").append(cell(row.placement() + " ("
                        + row.placement().cpus() + ")")).append(" | ").append(cell(row.reason().toString())).append(" |\n");
            }
        }
    }

    /**
     * The header: where the figures come from, one line each, and that the page is generated.
     */
    static void header(LabReport report, StringBuilder md) {
        Provenance run = report.provenance();
        md.append("- Command: ").append(code(run.command())).append('\n');
        md.append("- Mode: ").append(report.mode().id()).append('\n');
        md.append("- Commit: ").append(code(run.commit())).append('\n');
        md.append("- Date: ").append(run.startedInWords()).append(" (the run took ").append(run.took()).append(")\n");
        md.append("- Machine: ").append(cell(report.machine().cpu() + ", " + report.machine().cpus() + " CPUs, "
                + report.machine().memory() + ", " + report.machine().os())).append('\n');
        md.append("- JDK: ").append(cell(report.machine().jdk())).append('\n');
        md.append("\nWritten by the lab, not by hand; the same run's figures are in `results.json` (with its schema) "
                + "and `results.csv` beside this page, and its charts in `index.html`.\n");
    }

    /** {@return {@code text} as inline code}: fenced with more backticks than it holds, never escaped */
    static String code(String text) {
        String flat = text.replace('\n', ' ');
        String fence = "`";
        while (flat.contains(fence)) {
            fence += "`";
        }
        return fence.length() == 1 ? fence + flat + fence : fence + " " + flat + " " + fence;
    }

    private static void table(Table table, StringBuilder md) {
        md.append("\n**").append(cell(table.title())).append("**\n\n");
        row(table.header(), md);
        md.append('|');
        for (int i = 0; i < table.header().size(); i++) {
            md.append(i == 0 ? " --- |" : " ---: |");
        }
        md.append('\n');
        for (List<String> row : table.rows()) {
            row(row, md);
        }
        if (!table.notes().isEmpty()) {
            md.append('\n');
            for (String note : table.notes()) {
                md.append("- ").append(cell(note)).append('\n');
            }
        }
    }

    private static void row(List<String> cells, StringBuilder md) {
        md.append('|');
        for (String cell : cells) {
            md.append(' ').append(cell(cell)).append(" |");
        }
        md.append('\n');
    }

    /** A cell's text: pipes escaped, line breaks as spaces, so that it stays in its cell and row. */
    static String cell(String text) {
        return text.replace("\\", "\\\\").replace("|", "\\|").replace('\n', ' ').replace("*", "\\*");
    }
}
