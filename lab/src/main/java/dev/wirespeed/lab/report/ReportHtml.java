package dev.wirespeed.lab.report;

import dev.wirespeed.lab.result.Check;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.Measurement;
import dev.wirespeed.lab.result.Percentile;
import dev.wirespeed.lab.result.Role;
import dev.wirespeed.lab.result.SetAside;
import dev.wirespeed.lab.result.Unit;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The lab's {@code index.html}: self-contained (inline SVG, no script, nothing from the network). It
 * opens with a summary (every target with its worst ratio and verdict, then the articles' claims that
 * do not hold here), then for every experiment, placement and unit a bar chart (medians, a whisker
 * from min to max, the article's figure as a tick) with its table, a percentile chart per placement
 * for latency, every finding with its figures, and the rows set aside (which judge no finding) with
 * why; the charts' tables mark the cells set aside as the text tables do. Rows are coloured by
 * {@link Role}.
 */
public final class ReportHtml {
    /** The SVG coordinate width; the charts scale to the page's width. */
    private static final int WIDTH = 1200;
    private static final int LABEL = 300;
    private static final int ROW = 22;
    private static final Map<Role, String> COLOURS = new EnumMap<>(Map.of(Role.ARTICLE, "#9aa5b1", Role.LIBRARY, "#2563eb",
            Role.JDK, "#7c3aed", Role.PEER, "#16a34a", Role.CEILING, "#d97706"));
    private static final Map<Role, String> LEGEND = new EnumMap<>(Map.of(Role.ARTICLE, "article strategy",
            Role.LIBRARY, "wirespeed", Role.JDK, "the JDK's own", Role.PEER, "peer (Netty)",
            Role.CEILING, "ceiling (C, iperf3, wc)"));

    private ReportHtml() {
    }

    /**
     * {@return the report page}
     *
     * @param report the run's report
     */
    public static String render(LabReport report) {
        StringBuilder html = new StringBuilder();
        html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>wirespeed lab report</title>\n")
                .append("<style>body{font:14px/1.4 system-ui,sans-serif;margin:2em auto;color:#222;max-width:1400px;")
                .append("padding:0 2em}h1{font-size:1.5em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ccc}")
                .append("h3{font-size:1.05em;margin-top:1.5em}table{border-collapse:collapse;margin:.5em 0}")
                .append("td,th{border-bottom:1px solid #ddd;padding:2px 8px;text-align:right}td:first-child,th:first-child")
                .append("{text-align:left}.set-aside td,.set-aside th{text-align:left}")
                .append(".holds{color:#1a7f37}.fails{color:#b42318;font-weight:600}")
                .append("svg.chart{width:100%;height:auto}svg text{font:13px system-ui,sans-serif}")
                .append(".legend span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:middle}")
                .append("</style></head><body>\n");
        Provenance run = report.provenance();
        html.append("<h1>wirespeed lab report</h1>\n<p><code>").append(escape(run.command())).append("</code> at commit <code>")
                .append(escape(run.commit())).append("</code>, ").append(escape(run.startedInWords())).append(" (")
                .append(escape(run.took())).append(")</p>\n<p>").append(escape(report.machine().toString())).append("; mode ")
                .append(report.mode().id()).append(". Bars: medians (MB = 10<sup>6</sup> bytes); whiskers: min to max; ")
                .append("black tick: the published figure.</p>\n<p class=\"legend\">");
        for (Role role : Role.values()) {
            html.append("<span style=\"background:").append(COLOURS.get(role)).append("\"></span>")
                    .append(escape(LEGEND.get(role)));
        }
        html.append("</p>\n");
        summary(report, html);
        for (LabReport.Experiment experiment : report.experiments()) {
            List<Measurement> rows = report.measurements().stream()
                    .filter(m -> m.series().experiment().equals(experiment.name())).toList();
            html.append("<h2 id=\"").append(escape(experiment.name())).append("\">").append(escape(experiment.name()))
                    .append("</h2>\n<p>").append(escape(experiment.description())).append("</p>\n");
            List<SetAside> setAside = report.setAside().stream().filter(s -> s.experiment().equals(experiment.name()))
                    .toList();
            charts(rows, setAside, html);
            findings(report.findings().stream().filter(f -> f.experiment().equals(experiment.name())).toList(), html);
            setAside(setAside, html);
        }
        if (!report.notes().isEmpty()) {
            html.append("<h2>Notes</h2>\n<ul>\n");
            report.notes().forEach(note -> html.append("<li>").append(escape(note)).append("</li>\n"));
            html.append("</ul>\n");
        }
        return html.append("</body></html>\n").toString();
    }

    /** The answers first: each target with its worst check, then the claims that do not hold. */
    private static void summary(LabReport report, StringBuilder html) {
        List<Finding> targets = report.findings().stream().filter(f -> f.kind() == Finding.Kind.TARGET).toList();
        long met = targets.stream().filter(Finding::holds).count();
        html.append("<h2 id=\"summary\">Summary</h2>\n<p>").append(met).append(" of ").append(targets.size())
                .append(" targets met; ").append(report.findings().stream().filter(f -> f.kind() == Finding.Kind.CLAIM
                        && !f.holds()).count()).append(" of the articles' claims do not hold on this machine.");
        if (!report.setAside().isEmpty()) {
            html.append(" ").append(report.setAside().size()).append(" row(s) set aside, each listed under its experiment: ")
                    .append("the lab does not trust them, and no finding is judged on them.");
        }
        html.append("</p>\n");
        if (!targets.isEmpty()) {
            html.append("<table class=\"summary\"><tr><th>target</th><th>experiment</th><th>rule</th><th>worst ratio</th>")
                    .append("<th>where</th><th>verdict</th></tr>\n");
            for (Finding target : targets) {
                Check worst = target.worst();
                html.append("<tr><td>").append(escape(target.claim())).append("</td><td>").append(escape(target.experiment()))
                        .append("</td><td>").append(escape(target.rule().toString())).append("</td><td>")
                        .append(String.format(Locale.ROOT, "%.2fx", worst.ratio())).append("</td><td>")
                        .append(escape(worst.where())).append("</td><td>").append(verdict(target)).append("</td></tr>\n");
            }
            html.append("</table>\n");
        }
        List<Finding> failing = report.findings().stream().filter(f -> f.kind() == Finding.Kind.CLAIM && !f.holds()).toList();
        if (!failing.isEmpty()) {
            html.append("<h3>The articles' claims that do not hold here</h3>\n<ul>\n");
            for (Finding claim : failing) {
                html.append("<li>").append(escape(claim.title())).append(" (").append(escape(claim.experiment()))
                        .append(")<br><small>").append(escape(claim.failures().stream().map(Check::toString)
                                .reduce((a, b) -> a + "; " + b).orElse(""))).append("</small></li>\n");
            }
            html.append("</ul>\n");
        }
    }

    private static String verdict(Finding finding) {
        return finding.holds() ? "<span class=\"holds\">holds</span>" : "<span class=\"fails\">does not hold</span>";
    }

    private static void findings(List<Finding> findings, StringBuilder html) {
        if (findings.isEmpty()) {
            return;
        }
        html.append("<h3>Findings</h3>\n<ul>\n");
        for (Finding finding : findings) {
            html.append("<li>").append(verdict(finding)).append(": ").append(escape(finding.title())).append("<br><small>")
                    .append(escape(finding.figures())).append("</small></li>\n");
        }
        html.append("</ul>\n");
    }

    /** One experiment's rows set aside: row, placement, and why the lab does not trust it. */
    private static void setAside(List<SetAside> rows, StringBuilder html) {
        if (rows.isEmpty()) {
            return;
        }
        html.append("<h3>Set aside</h3>\n<p>Rows the lab does not trust: no finding is judged on them, and the notes ")
                .append("name each finding left out.</p>\n<table class=\"set-aside\"><tr><th>row</th><th>placement</th>")
                .append("<th>reason</th></tr>\n");
        for (SetAside row : rows) {
            html.append("<tr><td>").append(escape(row.name())).append("</td><td>").append(escape(row.placement() + " ("
                    + row.placement().cpus() + ")")).append("</td><td>").append(escape(row.reason().toString()))
                    .append("</td></tr>\n");
        }
        html.append("</table>\n");
    }

    /**
     * One bar chart per placement and unit (throughput and memory; CPU time stays in results.json), and
     * per size where an experiment measures several sizes; a percentile chart per placement for latency.
     * Each chart's table marks the cells of {@code setAside} as the text tables do.
     */
    private static void charts(List<Measurement> rows, List<SetAside> setAside, StringBuilder html) {
        Set<Long> sizes = new TreeSet<>();
        rows.forEach(m -> sizes.add(m.series().size()));
        Map<String, List<Measurement>> bars = new LinkedHashMap<>();
        for (Unit unit : List.of(Unit.MB_PER_S, Unit.CALLS_PER_S, Unit.BYTES)) {
            for (Measurement m : rows) {
                if (m.unit() == unit) {
                    String key = m.placement() + ", " + unit + (sizes.size() > 1 ? ", " + m.series().size() + "-byte input" : "");
                    bars.computeIfAbsent(key, k -> new ArrayList<>()).add(m);
                }
            }
        }
        for (var chart : bars.entrySet()) {
            html.append("<h3>").append(escape(chart.getKey())).append("</h3>\n");
            html.append(barChart(chart.getKey(), chart.getValue()));
            html.append(table(chart.getValue(), setAside));
        }
        Map<String, List<Measurement>> latency = new LinkedHashMap<>();
        for (Measurement m : rows) {
            if (m.percentile() != null) {
                latency.computeIfAbsent(m.placement() + ", round trip by percentile (us, log scale)",
                        k -> new ArrayList<>()).add(m);
            }
        }
        for (var chart : latency.entrySet()) {
            html.append("<h3>").append(escape(chart.getKey())).append("</h3>\n");
            html.append(percentileChart(chart.getKey(), chart.getValue()));
            html.append(percentileTable(chart.getValue(), setAside));
        }
    }

    private static String barChart(String title, List<Measurement> rows) {
        double max = 0;
        for (Measurement m : rows) {
            max = Math.max(max, Math.max(m.stats().max(), m.published() == null ? 0 : m.published()));
        }
        double scale = max <= 0 ? 1 : (WIDTH - LABEL - 90) / max;
        int height = rows.size() * ROW + 10;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg class=\"chart\" role=\"img\" viewBox=\"0 0 %d %d\" "
                + "xmlns=\"http://www.w3.org/2000/svg\"><title>%s</title>\n", WIDTH, height, escape(title)));
        int y = 4;
        for (Measurement m : rows) {
            double median = m.stats().median();
            String name = m.series().name();
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>", LABEL - 6,
                    y + 15, escape(name)));
            svg.append(String.format(Locale.ROOT, "<rect class=\"bar %s\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"16\" "
                    + "fill=\"%s\"><title>%s: %.1f %s [%.1f-%.1f]</title></rect>", m.series().role().id(), LABEL, y + 3,
                    median * scale, COLOURS.get(m.series().role()), escape(name), median, escape(m.unit().symbol()),
                    m.stats().min(), m.stats().max()));
            svg.append(String.format(Locale.ROOT, "<line class=\"whisker\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" "
                    + "stroke=\"#222\"/>", LABEL + m.stats().min() * scale, LABEL + m.stats().max() * scale, y + 11, y + 11));
            if (m.published() != null) {
                double x = LABEL + m.published() * scale;
                svg.append(String.format(Locale.ROOT, "<line class=\"published\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" "
                        + "stroke=\"#000\" stroke-width=\"3\"><title>article: %.1f %s</title></line>", x, x, y + 1, y + 21,
                        m.published(), escape(m.unit().symbol())));
            }
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\">%s</text>\n",
                    LABEL + Math.max(m.stats().max(), median) * scale + 6, y + 15, number(median)));
            y += ROW;
        }
        svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"0\" y2=\"%d\" stroke=\"#888\"/>", LABEL, LABEL, y));
        return svg.append("</svg>\n").toString();
    }

    /** Distinct colours for the lines of a percentile chart, shades of each role's colour. */
    private static String lineColour(Role role, int index) {
        String[] shades = switch (role) {
            case LIBRARY -> new String[] {"#1d4ed8", "#60a5fa"};
            case CEILING -> new String[] {"#b45309", "#f59e0b"};
            case JDK -> new String[] {"#6d28d9", "#a78bfa"};
            case PEER -> new String[] {"#16a34a", "#4ade80"};
            case ARTICLE -> new String[] {"#4b5563", "#9ca3af"};
        };
        return shades[index % 2];
    }

    /**
     * One polyline per case through its median at each percentile, on a logarithmic microsecond axis,
     * with the article's figures as black ticks: tail and median read on one chart.
     */
    private static String percentileChart(String title, List<Measurement> rows) {
        List<Percentile> percentiles = List.of(Percentile.values());
        Map<String, List<Measurement>> byCase = new LinkedHashMap<>();
        for (Measurement m : rows) {
            byCase.computeIfAbsent(m.series().name(), k -> new ArrayList<>()).add(m);
        }
        double lo = Double.MAX_VALUE;
        double hi = 0;
        for (Measurement m : rows) {
            lo = Math.min(lo, Math.max(0.1, m.stats().median()));
            hi = Math.max(hi, m.stats().median());
        }
        double logLo = Math.floor(Math.log10(lo));
        double logHi = Math.max(logLo + 1, Math.ceil(Math.log10(Math.max(hi, lo))));
        int left = 80;
        int right = 260;
        int top = 10;
        int plot = 320;
        int height = plot + 50;
        double step = (WIDTH - left - right) / (double) (percentiles.size() - 1);
        StringBuilder svg = new StringBuilder(String.format(Locale.ROOT, "<svg class=\"chart percentiles\" role=\"img\" "
                + "viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\"><title>%s</title>\n", WIDTH, height,
                escape(title)));
        DecimalFormat decades = new DecimalFormat("#,##0.###", DecimalFormatSymbols.getInstance(Locale.ROOT));
        for (double decade = logLo; decade <= logHi; decade++) {
            double y = top + plot - (decade - logLo) / (logHi - logLo) * plot;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s us</text>\n", left, WIDTH - right, y, y, left - 6,
                    y + 4, decades.format(Math.pow(10, decade))));
        }
        for (int i = 0; i < percentiles.size(); i++) {
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>",
                    left + i * step, top + plot + 20, percentiles.get(i).label()));
        }
        Map<Role, Integer> shade = new EnumMap<>(Role.class);
        int legendY = top + 10;
        for (var entry : byCase.entrySet()) {
            Role role = entry.getValue().get(0).series().role();
            String colour = lineColour(role, shade.merge(role, 1, Integer::sum) - 1);
            StringBuilder points = new StringBuilder();
            for (Measurement m : entry.getValue()) {
                int i = percentiles.indexOf(m.percentile());
                double y = top + plot - (Math.log10(Math.max(0.1, m.stats().median())) - logLo) / (logHi - logLo) * plot;
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", left + i * step, y));
                svg.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s %s: "
                        + "%.1f us [%.1f-%.1f]</title></circle>", left + i * step, y, colour, escape(m.series().name()),
                        m.percentile().label(), m.stats().median(), m.stats().min(), m.stats().max()));
                if (m.published() != null) {
                    double py = top + plot - (Math.log10(m.published()) - logLo) / (logHi - logLo) * plot;
                    svg.append(String.format(Locale.ROOT, "<line class=\"published\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
                            + "y2=\"%.1f\" stroke=\"#000\" stroke-width=\"3\"><title>article, %s %s: %.1f us</title></line>",
                            left + i * step - 8, left + i * step + 8, py, py, escape(m.series().name()),
                            m.percentile().label(), m.published()));
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

    /** {@return whether a row of {@code setAside} distrusts {@code figure}} */
    private static boolean setAside(Measurement figure, List<SetAside> setAside) {
        return setAside.stream().anyMatch(row -> row.covers(figure));
    }

    private static String percentileTable(List<Measurement> rows, List<SetAside> setAside) {
        Map<String, Map<Percentile, Measurement>> byCase = new LinkedHashMap<>();
        for (Measurement m : rows) {
            byCase.computeIfAbsent(m.series().name(), k -> new EnumMap<>(Percentile.class)).put(m.percentile(), m);
        }
        StringBuilder table = new StringBuilder("<table><tr><th>case</th>");
        for (Percentile p : Percentile.values()) {
            table.append("<th>").append(p.label()).append("</th>");
        }
        table.append("<th>runs</th><th>article p50 / p90</th></tr>\n");
        for (var entry : byCase.entrySet()) {
            table.append("<tr><td>").append(escape(entry.getKey())).append("</td>");
            for (Percentile p : Percentile.values()) {
                Measurement m = entry.getValue().get(p);
                table.append(m == null ? "<td>-</td>" : "<td>" + SetAside.marked(String.format(Locale.ROOT,
                        "%.1f [%.1f-%.1f]", m.stats().median(), m.stats().min(), m.stats().max()), setAside(m, setAside))
                        + "</td>");
            }
            Measurement p50 = entry.getValue().get(Percentile.P50);
            Measurement p90 = entry.getValue().get(Percentile.P90);
            table.append(String.format(Locale.ROOT, "<td>%d</td><td>%s</td></tr>\n", p50 == null ? 0 : p50.stats().runs(),
                    p50 == null || p50.published() == null ? "-" : String.format(Locale.ROOT, "%.1f / %.1f",
                            p50.published(), p90 == null || p90.published() == null ? Double.NaN : p90.published())));
        }
        return table.append("</table>\n").toString();
    }

    private static String table(List<Measurement> rows, List<SetAside> setAside) {
        StringBuilder table = new StringBuilder("<table><tr><th>case</th><th>" + escape(rows.get(0).unit().symbol())
                + " median</th><th>min</th><th>max</th><th>runs</th><th>% of ceiling</th><th>published</th></tr>\n");
        for (Measurement m : rows) {
            table.append(String.format(Locale.ROOT,
                    "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%d</td><td>%s</td><td>%s</td></tr>\n",
                    escape(m.series().name()), SetAside.marked(number(m.stats().median()), setAside(m, setAside)),
                    number(m.stats().min()), number(m.stats().max()),
                    m.stats().runs(), m.ofCeiling() == null ? "-" : String.format(Locale.ROOT, "%.0f%%", 100 * m.ofCeiling()),
                    m.published() == null ? "-" : number(m.published())));
        }
        return table.append("</table>\n").toString();
    }

    private static String number(double value) {
        return Math.abs(value) >= 100 ? String.format(Locale.ROOT, "%,.0f", value) : String.format(Locale.ROOT, "%.1f", value);
    }

    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
