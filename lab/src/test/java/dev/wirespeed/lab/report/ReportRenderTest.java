package dev.wirespeed.lab.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.env.Tools;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report renders in headless Chromium with its charts present. Debian's chromium is installed
 * here where it is missing and this JVM runs as root with apt-get; otherwise the test is skipped with
 * a message saying what is missing.
 */
class ReportRenderTest {
    private static Optional<String> chromium = Optional.empty();
    private static String why = "";

    @TempDir
    Path dir;

    @BeforeAll
    static void findOrInstallChromium() throws Exception {
        chromium = find();
        if (chromium.isPresent()) {
            return;
        }
        if (!Tools.has("apt-get") || !"root".equals(System.getProperty("user.name"))) {
            why = "no chromium on the PATH, and apt-get as root is not available to install it";
            return;
        }
        System.out.println("ReportRenderTest: installing Debian's chromium (apt-get install chromium) for the render test");
        Process install = new ProcessBuilder("sh", "-c", "(apt-get install -y --no-install-recommends chromium || "
                + "(apt-get update && apt-get install -y --no-install-recommends chromium)) >/dev/null 2>&1")
                .inheritIO().start();
        install.getOutputStream().close();
        if (!install.waitFor(15, TimeUnit.MINUTES) || install.exitValue() != 0) {
            install.destroyForcibly();
            why = "apt-get install chromium failed or took more than 15 minutes";
            return;
        }
        chromium = find();
        why = chromium.isPresent() ? "" : "chromium installed but not found on the PATH";
    }

    private static Optional<String> find() {
        return List.of("chromium", "chromium-browser", "google-chrome").stream().filter(Tools::has).findFirst();
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
        assertTrue(html.contains("<p>1 of 2 targets met; 1 of the articles' claims do not hold on this machine.</p>"), html);
        assertTrue(html.contains("<tr><td>wirespeed &lt;- C writer reaches 90% of the ceiling</td><td>tcp</td>"
                + "<td>&gt;= 0.9x</td><td>0.66x</td><td>tcp, different cores</td><td><span class=\"fails\">does not hold"
                + "</span></td></tr>"), html);
        assertTrue(html.contains("<li>compact-on-demand beats append-until-end (&gt; 1x) (tcp)"), html);
    }

    @Test
    void theReportRendersInHeadlessChromiumWithItsCharts() throws Exception {
        Assumptions.assumeTrue(chromium.isPresent(), () -> "skipped: " + why);
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
