package dev.wirespeed.lab.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
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

    static LabRun sampleRun() {
        LabRun lab = new LabRun(LabRun.Mode.QUICK, new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()), false);
        String[] cases = {"unbuffered", "zero-copy", "wirespeed", "C read(2) blocking"};
        double[] mb = {51.8, 2483.2, 2379.8, 3600.0};
        for (String placement : List.of("different cores", "same core")) {
            for (int i = 0; i < cases.length; i++) {
                lab.rows.add(new Row("tcp", cases[i], "tcp", placement, "MB/s", new Stats(mb[i], mb[i] * 0.95, mb[i] * 1.05, 3),
                        100, i == 1 ? 2147.1 : Double.NaN, i == 2, i == 3, false));
            }
        }
        lab.findings.add(new Finding("zero-copy beats copying the body (tcp, same core) <check escaping>", true, "1.01x"));
        lab.findings.add(new Finding("wirespeed reaches >= 90% of the ceiling (tcp, different cores)", false, "66%"));
        lab.notes.add("experiment 'latency' is not built yet: skipped");
        return lab;
    }

    @Test
    void theReportIsSelfContainedWithOneChartPerExperimentAndPlacement() {
        String html = ReportHtml.render(sampleRun());
        assertEquals(2, Pattern.compile("<svg class=\"chart\"").matcher(html).results().count());
        assertEquals(8, Pattern.compile("<rect class=\"bar\"").matcher(html).results().count());
        assertEquals(2, Pattern.compile("<line class=\"published\"").matcher(html).results().count());
        assertTrue(html.contains("&lt;check escaping&gt;"), "finding text is escaped");
        assertTrue(!html.contains("<script"), "the report needs no JavaScript");
        assertTrue(!Pattern.compile("(src|href)=\"https?:").matcher(html).find(), "the report loads nothing from the network");
    }

    @Test
    void theReportRendersInHeadlessChromiumWithItsCharts() throws Exception {
        Assumptions.assumeTrue(chromium.isPresent(), () -> "skipped: " + why);
        Path page = Files.writeString(dir.resolve("index.html"), ReportHtml.render(sampleRun()));
        Path png = dir.resolve("report.png");
        List<String> common = List.of(chromium.get(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--window-size=1200,1600");
        Process dump = new ProcessBuilder(concat(common, "--dump-dom", page.toUri().toString())).start();
        String dom = new String(dump.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(dump.waitFor(2, TimeUnit.MINUTES), "chromium hung");
        assertEquals(2, Pattern.compile("<svg class=\"chart\"").matcher(dom).results().count(), dom);
        assertEquals(8, Pattern.compile("<rect class=\"bar\"").matcher(dom).results().count(), dom);

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
