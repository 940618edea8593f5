package dev.wirespeed.lab.experiment;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code index.html}: one self-contained page (inline CSS and SVG, no script, no network) with a bar
 * chart per experiment and placement (median MB/s, a whisker from min to max, the article's figure as
 * a tick), the numbers in a table beside each chart, and the findings.
 */
final class ReportHtml {
    private static final int WIDTH = 920;
    private static final int LABEL = 250;
    private static final int ROW = 22;

    private ReportHtml() {
    }

    static String render(LabRun lab) {
        StringBuilder html = new StringBuilder();
        html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>wirespeed lab report</title>\n")
                .append("<style>body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;max-width:1100px}")
                .append("h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em}table{border-collapse:collapse;margin:.5em 0}")
                .append("td,th{border-bottom:1px solid #ddd;padding:2px 8px;text-align:right}td:first-child,th:first-child")
                .append("{text-align:left}.holds{color:#1a7f37}.fails{color:#b42318;font-weight:600}")
                .append("svg text{font:12px system-ui,sans-serif}.legend span{display:inline-block;width:12px;height:12px;")
                .append("margin:0 4px 0 12px;vertical-align:middle}</style></head><body>\n");
        html.append("<h1>wirespeed lab report</h1>\n<p>").append(escape(Machine.jdk())).append(" on ")
                .append(escape(Machine.describe().toString())).append("; mode ")
                .append(lab.mode.name().toLowerCase(Locale.ROOT)).append(", ").append(lab.mode.runs)
                .append(" run(s) per cell. Bars: medians (MB = 10<sup>6</sup> bytes); whiskers: min to max; ")
                .append("black tick: the published figure.</p>\n<p class=\"legend\">")
                .append("<span style=\"background:#9aa5b1\"></span>article strategy<span style=\"background:#2563eb\"></span>wirespeed")
                .append("<span style=\"background:#d97706\"></span>ceiling (C, iperf3)<span style=\"background:#16a34a\"></span>peer</p>\n");
        // One chart per experiment, placement and unit (MB/s first), and per size where an experiment
        // measures several sizes (files, readall); the CPU-time rows stay in results.json.
        Map<String, java.util.Set<Integer>> sizes = new LinkedHashMap<>();
        for (Row row : lab.rows) {
            sizes.computeIfAbsent(row.experiment(), e -> new java.util.TreeSet<>()).add(row.size());
        }
        Map<String, List<Row>> charts = new LinkedHashMap<>();
        for (String unit : List.of("MB/s", "ops/s", "bytes")) {
            for (Row row : lab.rows) {
                if (row.unit().equals(unit)) {
                    String key = row.experiment() + ": " + row.placement() + ", " + unit
                            + (sizes.get(row.experiment()).size() > 1 ? ", " + row.size() + "-byte input" : "");
                    charts.computeIfAbsent(key, k -> new ArrayList<>()).add(row);
                }
            }
        }
        for (var chart : charts.entrySet()) {
            html.append("<h2>").append(escape(chart.getKey())).append("</h2>\n");
            html.append(chart(chart.getKey(), chart.getValue()));
            html.append(table(chart.getValue()));
        }
        if (!lab.findings.isEmpty()) {
            html.append("<h2>Findings</h2>\n<ul>\n");
            for (Finding finding : lab.findings) {
                html.append("<li><span class=\"").append(finding.holds() ? "holds\">holds" : "fails\">does not hold")
                        .append("</span>: ").append(escape(finding.finding())).append("<br><small>")
                        .append(escape(finding.figures())).append("</small></li>\n");
            }
            html.append("</ul>\n");
        }
        if (!lab.notes.isEmpty()) {
            html.append("<h2>Notes</h2>\n<ul>\n");
            lab.notes.forEach(note -> html.append("<li>").append(escape(note)).append("</li>\n"));
            html.append("</ul>\n");
        }
        return html.append("</body></html>\n").toString();
    }

    private static String chart(String title, List<Row> rows) {
        double max = 0;
        for (Row row : rows) {
            max = Math.max(max, Math.max(row.stats().max(), Double.isNaN(row.published()) ? 0 : row.published()));
        }
        double scale = max <= 0 ? 1 : (WIDTH - LABEL - 70) / max;
        int height = rows.size() * ROW + 30;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg class=\"chart\" role=\"img\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                + "xmlns=\"http://www.w3.org/2000/svg\"><title>%s</title>\n", WIDTH, height, WIDTH, height, escape(title)));
        int y = 4;
        for (Row row : rows) {
            double median = row.stats().median();
            String colour = row.ceiling() ? "#d97706" : row.peer() ? "#16a34a" : row.ours() ? "#2563eb" : "#9aa5b1";
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>", LABEL - 6,
                    y + 15, escape(row.kase())));
            svg.append(String.format(Locale.ROOT, "<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"%s\">"
                    + "<title>%s: %.1f %s [%.1f-%.1f]</title></rect>", LABEL, y + 3, median * scale, colour,
                    escape(row.kase()), median, escape(row.unit()), row.stats().min(), row.stats().max()));
            svg.append(String.format(Locale.ROOT, "<line class=\"whisker\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#222\"/>",
                    LABEL + row.stats().min() * scale, LABEL + row.stats().max() * scale, y + 11, y + 11));
            if (!Double.isNaN(row.published())) {
                double x = LABEL + row.published() * scale;
                svg.append(String.format(Locale.ROOT, "<line class=\"published\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" "
                        + "stroke=\"#000\" stroke-width=\"3\"><title>article: %.1f MB/s</title></line>", x, x, y + 1, y + 21,
                        row.published()));
            }
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\">%.0f</text>\n",
                    LABEL + Math.max(row.stats().max(), median) * scale + 6, y + 15, median));
            y += ROW;
        }
        svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"0\" y2=\"%d\" stroke=\"#888\"/>", LABEL, LABEL, y));
        return svg.append("</svg>\n").toString();
    }

    private static String table(List<Row> rows) {
        double ceiling = rows.stream().filter(Row::ceiling).mapToDouble(row -> row.stats().median()).max().orElse(Double.NaN);
        StringBuilder table = new StringBuilder("<table><tr><th>case</th><th>" + escape(rows.get(0).unit())
                + " median</th><th>min</th><th>max</th><th>runs</th><th>% of ceiling</th><th>published</th></tr>\n");
        for (Row row : rows) {
            table.append(String.format(Locale.ROOT,
                    "<tr><td>%s</td><td>%.1f</td><td>%.1f</td><td>%.1f</td><td>%d</td><td>%s</td><td>%s</td></tr>\n",
                    escape(row.kase()), row.stats().median(), row.stats().min(), row.stats().max(), row.stats().count(),
                    Double.isNaN(ceiling) ? "-" : String.format(Locale.ROOT, "%.0f%%", 100 * row.stats().median() / ceiling),
                    Double.isNaN(row.published()) ? "-" : String.format(Locale.ROOT, "%.1f", row.published())));
        }
        return table.append("</table>\n").toString();
    }

    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
