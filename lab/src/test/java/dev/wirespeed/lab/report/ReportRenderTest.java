package dev.wirespeed.lab.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.env.Tools;
import dev.wirespeed.lab.result.Percentile;
import dev.wirespeed.lab.result.SetAside;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.result.Unit;
import dev.wirespeed.testing.Environment.Feature;
import dev.wirespeed.testing.Environment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report renders in headless Chromium with its charts present. Where there is no Chromium the
 * rendering test is skipped, saying so; {@code scripts/setup-ci.sh} installs it. A test installs nothing.
 */
class ReportRenderTest {
    /** Why the rendering test skips where Chromium is missing. */
    private static final String NO_CHROMIUM = "no Chromium: neither /usr/bin/chromium nor chromium or chromium-browser on the "
            + "PATH; scripts/setup-ci.sh installs it (as root, with apt-get)";

    @TempDir
    Path dir;

    /** {@return the Chromium to run: Debian's {@code /usr/bin/chromium}, else the first on the PATH} */
    private static Optional<String> chromium() {
        if (Files.isExecutable(Path.of("/usr/bin/chromium"))) {
            return Optional.of("/usr/bin/chromium");
        }
        return Stream.of("chromium", "chromium-browser").filter(Tools::has).findFirst();
    }

    @Test
    void theReportIsSelfContainedWithOneChartPerExperimentAndPlacement() {
        String html = ReportHtml.render(SampleReport.create());
        assertEquals(2, Pattern.compile("<svg class=\"chart\"").matcher(html).results().count());
        assertEquals(2, Pattern.compile("<svg class=\"chart percentiles\"").matcher(html).results().count());
        assertEquals(8, Pattern.compile("<rect class=\"bar ").matcher(html).results().count());
        assertEquals(2, Pattern.compile("<rect class=\"bar library\"").matcher(html).results().count(),
                "the library read by the C writer is coloured as the library");
        assertEquals(4, Pattern.compile("<line class=\"published\"").matcher(html).results().count());
        assertTrue(html.contains("&lt;check escaping&gt;"), "finding text is escaped");
        assertTrue(!html.contains("<script"), "the report needs no JavaScript");
        assertTrue(!Pattern.compile("(src|href)=\"https?:").matcher(html).find(), "the report loads nothing from the network");
    }

    @Test
    void theReportOpensWithASummaryOfTargetsAndTheClaimsThatFail() {
        String html = ReportHtml.render(SampleReport.create());
        int summary = html.indexOf("<h2 id=\"summary\">");
        assertTrue(summary > 0 && summary < html.indexOf("<svg"), "the summary comes first");
        assertTrue(html.contains("<p>1 of 2 targets met; 1 of the articles' claims do not hold on this machine. 2 row(s) "
                + "set aside, each listed under its experiment: the lab does not trust them, and no finding is judged on "
                + "them.</p>"), html);
        assertTrue(html.contains("<tr><td>wirespeed &lt;- C writer reaches 90% of the ceiling</td><td>tcp</td>"
                + "<td>&gt;= 0.9x</td><td>0.66x</td><td>tcp, different cores</td><td><span class=\"fails\">does not hold"
                + "</span></td></tr>"), html);
        assertTrue(html.contains("<li>compact-on-demand beats append-until-end (&gt; 1x) (tcp)"), html);
    }

    @Test
    void eachExperimentListsItsRowsSetAsideWithPlacementAndReasonAfterItsFindings() {
        String html = ReportHtml.render(SampleReport.create());
        int tcp = html.indexOf("<h2 id=\"tcp\">");
        int latency = html.indexOf("<h2 id=\"latency\">");
        int tcpRows = html.indexOf("<tr><td>netty-nio</td><td>different cores (server cpu0, client cpu1)</td><td>its timed "
                + "rounds read 608.0 MB/s and an untimed pass of the same client 5,000.0 MB/s: -88%, beyond the 15% the lab "
                + "allows</td></tr>");
        int latencyRows = html.indexOf("<tr><td>jdk-spin p50</td><td>same core (server cpu1, client cpu1)</td><td>its "
                + "figures spread from 37.0 to 90,702.0 us about a median of 60.0: wider than the median</td></tr>");
        assertTrue(tcp < html.indexOf("<h3>Findings</h3>", tcp) && html.indexOf("<h3>Findings</h3>", tcp) < tcpRows
                && tcpRows < latency, "tcp's row under tcp, after its findings: " + html);
        assertTrue(latency < latencyRows, "latency's row under latency: " + html);
        assertEquals(2, Pattern.compile("<h3>Set aside</h3>").matcher(html).results().count(), html);
        LabReport sample = SampleReport.create();
        String trusted = ReportHtml.render(new LabReport(sample.schema(), sample.provenance(), sample.machine(),
                sample.mode(), sample.experiments(), sample.measurements(), sample.findings(), List.of(), sample.notes()));
        assertTrue(!trusted.contains("Set aside") && !trusted.contains("set aside"), "nothing set aside, no section");
    }

    @Test
    void theChartsTablesMarkTheCellsSetAsideAsTheTextTablesDo() {
        LabReport sample = SampleReport.create();
        List<SetAside> setAside = List.of(
                new SetAside("tcp", "zero-copy", SampleReport.APART, null, new SetAside.Reason(SetAside.Cause.SPREAD,
                        Unit.MB_PER_S, new Stats(2483.2, 900, 4000, 3), null, null)),
                new SetAside("latency", "native-spin", SampleReport.TOGETHER, Percentile.P50, new SetAside.Reason(
                        SetAside.Cause.SPREAD, Unit.MICROSECONDS, new Stats(6.1, 2, 90, 3), null, null)));
        String html = ReportHtml.render(new LabReport(sample.schema(), sample.provenance(), sample.machine(),
                sample.mode(), sample.experiments(), sample.measurements(), sample.findings(), setAside, sample.notes()));
        int together = html.indexOf("<h3>same core, MB/s</h3>");
        int apartMarked = html.indexOf("<tr><td>zero-copy</td><td>2,483 set aside</td><td>2,359</td><td>2,607</td>");
        int togetherPlain = html.indexOf("<tr><td>zero-copy</td><td>2,483</td><td>2,359</td><td>2,607</td>");
        assertTrue(0 < apartMarked && apartMarked < together && together < togetherPlain,
                "zero-copy marked at different cores only: " + html);
        int apartPlain = html.indexOf("<tr><td>native-spin</td><td>6.1 [5.5-6.7]</td><td>6.4 [5.8-7.0]</td>");
        int togetherMarked = html.indexOf("<tr><td>native-spin</td><td>6.1 [5.5-6.7] set aside</td><td>6.4 [5.8-7.0]</td>");
        assertTrue(0 < apartPlain && apartPlain < togetherMarked, "native-spin's p50 marked on the same core only, "
                + "its p90 not: " + html);
        assertEquals(2, Pattern.compile(" set aside</td>").matcher(html).results().count(), html);
        assertEquals(0, Pattern.compile(" set aside</td>").matcher(ReportHtml.render(SampleReport.create())).results()
                .count(), "rows set aside that no chart shows mark nothing");
    }

    @Test
    void theReportRendersInHeadlessChromiumWithItsCharts() throws Exception {
        Optional<String> chromium = chromium();
        Environment.assume(Feature.CHROMIUM, chromium.isPresent(), () -> NO_CHROMIUM);
        Path page = Files.writeString(dir.resolve("index.html"), ReportHtml.render(SampleReport.create()));
        Path png = dir.resolve("report.png");
        List<String> common = List.of(chromium.get(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--window-size=1200,1600");
        Process dump = new ProcessBuilder(concat(common, "--dump-dom", page.toUri().toString())).start();
        String dom = new String(dump.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(dump.waitFor(2, TimeUnit.MINUTES), "chromium hung");
        assertEquals(2, Pattern.compile("<svg class=\"chart\"").matcher(dom).results().count(), dom);
        assertEquals(8, Pattern.compile("<rect class=\"bar ").matcher(dom).results().count(), dom);

        Process shot = new ProcessBuilder(concat(common, "--screenshot=" + png, page.toUri().toString()))
                .redirectErrorStream(true).start();
        shot.getInputStream().readAllBytes();
        assertTrue(shot.waitFor(2, TimeUnit.MINUTES), "chromium hung");
        assertTrue(Files.size(png) > 10_000, "the screenshot is " + Files.size(png) + " bytes");
        Path kept = Path.of("target", "report-screenshot.png");
        Files.copy(png, kept, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        System.out.println("ReportRenderTest: screenshot in " + kept.toAbsolutePath());
    }

    private static List<String> concat(List<String> head, String... tail) {
        List<String> all = new java.util.ArrayList<>(head);
        all.addAll(List.of(tail));
        return all;
    }
}
