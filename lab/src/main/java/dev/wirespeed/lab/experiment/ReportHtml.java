package dev.wirespeed.lab.experiment;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code index.html}: one self-contained page (inline CSS and SVG, no script, no network) with a bar
 * chart per experiment and placement (median MB/s, a whisker from min to max, the article's figure as
 * a tick), a percentile chart per placement for latency, the numbers in a table beside each chart,
 * and the findings.
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
        Map<String, List<Row>> latency = new LinkedHashMap<>();
        for (Row row : lab.rows) {
            if (row.percentile() != null) {
                latency.computeIfAbsent(row.experiment() + ": " + row.placement() + ", round trip by percentile (us, log scale)",
                        k -> new ArrayList<>()).add(row);
            }
        }
        for (var chart : latency.entrySet()) {
            html.append("<h2>").append(escape(chart.getKey())).append("</h2>\n");
            html.append(percentileChart(chart.getKey(), chart.getValue()));
            html.append(percentileTable(chart.getValue()));
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

    /** Distinct colours for the lines of a percentile chart, ours in blues, ceilings in oranges, the peer green. */
    private static String lineColour(Row row, int index) {
        String[] ours = {"#1d4ed8", "#60a5fa"};
        String[] ceilings = {"#b45309", "#f59e0b"};
        String[] others = {"#4b5563", "#9ca3af"};
        return row.peer() ? "#16a34a" : row.ceiling() ? ceilings[index % 2] : row.ours() ? ours[index % 2] : others[index % 2];
    }

    /**
     * One polyline per case through its median at each percentile (p50 ... max), on a logarithmic
     * microsecond axis, with the article's figures as black ticks: the usual picture of a latency
     * distribution, where the tail and the median can be read on one chart.
     */
    private static String percentileChart(String title, List<Row> rows) {
        List<String> percentiles = List.of("p50", "p90", "p99", "p999", "max");
        Map<String, List<Row>> byCase = new LinkedHashMap<>();
        for (Row row : rows) {
            byCase.computeIfAbsent(row.kase(), k -> new ArrayList<>()).add(row);
        }
        double lo = Double.MAX_VALUE;
        double hi = 0;
        for (Row row : rows) {
            lo = Math.min(lo, Math.max(0.1, row.stats().median()));
            hi = Math.max(hi, row.stats().median());
        }
        double logLo = Math.floor(Math.log10(lo));
        double logHi = Math.max(logLo + 1, Math.ceil(Math.log10(Math.max(hi, lo))));
        int left = 70;
        int right = 230;
        int top = 10;
        int plot = 300;
        int height = plot + 50;
        double step = (WIDTH - left - right) / (double) (percentiles.size() - 1);
        StringBuilder svg = new StringBuilder(String.format(Locale.ROOT, "<svg class=\"chart percentiles\" role=\"img\" "
                + "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\"><title>%s</title>\n",
                WIDTH, height, WIDTH, height, escape(title)));
        for (double decade = logLo; decade <= logHi; decade++) {
            double y = top + plot - (decade - logLo) / (logHi - logLo) * plot;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s us</text>\n", left, WIDTH - right, y, y, left - 6, y + 4,
                    new java.text.DecimalFormat("#,##0.###", java.text.DecimalFormatSymbols.getInstance(Locale.ROOT))
                            .format(Math.pow(10, decade))));
        }
        for (int i = 0; i < percentiles.size(); i++) {
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>",
                    left + i * step, top + plot + 20, percentiles.get(i).equals("p999") ? "p99.9" : percentiles.get(i)));
        }
        int index = 0;
        int legendY = top + 10;
        for (var entry : byCase.entrySet()) {
            String colour = lineColour(entry.getValue().get(0), index++);
            StringBuilder points = new StringBuilder();
            for (Row row : entry.getValue()) {
                int i = percentiles.indexOf(row.percentile());
                double y = top + plot - (Math.log10(Math.max(0.1, row.stats().median())) - logLo) / (logHi - logLo) * plot;
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", left + i * step, y));
                svg.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s %s: "
                        + "%.1f us [%.1f-%.1f]</title></circle>", left + i * step, y, colour, escape(row.kase()),
                        row.percentile(), row.stats().median(), row.stats().min(), row.stats().max()));
                if (!Double.isNaN(row.published())) {
                    double py = top + plot - (Math.log10(row.published()) - logLo) / (logHi - logLo) * plot;
                    svg.append(String.format(Locale.ROOT, "<line class=\"published\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
                            + "y2=\"%.1f\" stroke=\"#000\" stroke-width=\"3\"><title>article, %s %s: %.1f us</title></line>",
                            left + i * step - 8, left + i * step + 8, py, py, escape(row.kase()), row.percentile(),
                            row.published()));
                }
            }
            svg.append(String.format(Locale.ROOT, "<polyline class=\"line\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
                    + "points=\"%s\"/>\n", colour, points.toString().strip()));
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" "
                    + "stroke-width=\"3\"/><text x=\"%d\" y=\"%d\">%s</text>\n", WIDTH - right + 15, WIDTH - right + 35,
                    legendY, legendY, colour, WIDTH - right + 40, legendY + 4, escape(entry.getKey())));
            legendY += 18;
        }
        svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#888\"/>",
                left, left, top, top + plot));
        return svg.append("</svg>\n").toString();
    }

    private static String percentileTable(List<Row> rows) {
        Map<String, Map<String, Row>> byCase = new LinkedHashMap<>();
        for (Row row : rows) {
            byCase.computeIfAbsent(row.kase(), k -> new LinkedHashMap<>()).put(row.percentile(), row);
        }
        StringBuilder table = new StringBuilder("<table><tr><th>case</th><th>p50</th><th>p90</th><th>p99</th>"
                + "<th>p99.9</th><th>max</th><th>runs</th><th>article p50 / p90</th></tr>\n");
        for (var entry : byCase.entrySet()) {
            table.append("<tr><td>").append(escape(entry.getKey())).append("</td>");
            for (String p : List.of("p50", "p90", "p99", "p999", "max")) {
                Row row = entry.getValue().get(p);
                table.append(row == null ? "<td>-</td>" : String.format(Locale.ROOT, "<td>%.1f [%.1f-%.1f]</td>",
                        row.stats().median(), row.stats().min(), row.stats().max()));
            }
            Row p50 = entry.getValue().get("p50");
            Row p90 = entry.getValue().get("p90");
            table.append(String.format(Locale.ROOT, "<td>%d</td><td>%s</td></tr>\n", p50 == null ? 0 : p50.stats().count(),
                    p50 == null || Double.isNaN(p50.published()) ? "-" : String.format(Locale.ROOT, "%.1f / %.1f",
                            p50.published(), p90 == null ? Double.NaN : p90.published())));
        }
        return table.append("</table>\n").toString();
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
