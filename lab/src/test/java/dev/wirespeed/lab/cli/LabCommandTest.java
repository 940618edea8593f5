package dev.wirespeed.lab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.lab.ExitCode;
import dev.wirespeed.lab.Main;
import dev.wirespeed.lab.env.Placements;
import dev.wirespeed.lab.env.Tools;
import dev.wirespeed.lab.report.LabReport;
import dev.wirespeed.lab.report.ResultsFiles;
import dev.wirespeed.lab.report.ResultsSchema;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.testing.Environment;
import dev.wirespeed.testing.Environment.Feature;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code wirespeed lab} as a user runs it, read from what it prints and the files it writes: one
 * {@code --quick} run of two cheap experiments end to end (latency through child processes, files in
 * the lab's own JVM), and the command lines it refuses. Every other experiment's tables and findings
 * are checked on synthetic results beside the experiment.
 */
class LabCommandTest {
    @TempDir
    static Path dir;

    /** The run's exit code, standard output and standard error. */
    private static int code;
    private static String out;
    private static String err;
    /** This thread's placements before the run and after it. */
    private static List<Placement> before;
    private static List<Placement> after;

    /** Whether the lab can build its C programs, whose rows and findings it then adds. */
    private static final boolean CC = Tools.has("cc");
    private static final boolean WC = Tools.has("wc");

    @BeforeAll
    static void runTheLatencyAndFilesExperimentsNamedOutOfOrder() {
        before = Placements.available(note -> { });
        StringWriter stdout = new StringWriter();
        StringWriter stderr = new StringWriter();
        var commandLine = Main.commandLine();
        commandLine.setOut(new PrintWriter(stdout));
        commandLine.setErr(new PrintWriter(stderr));
        code = commandLine.execute("lab", "--quick", "--out", dir.toString(), "files", "latency");
        out = stdout.toString();
        err = stderr.toString();
        after = Placements.available(note -> { });
    }

    private static List<String> latencyRows() {
        List<String> rows = new ArrayList<>(List.of("jdk", "jdk-spin", "native", "native-spin", "netty"));
        if (CC) {
            rows.addAll(List.of("C ping-pong blocking", "C ping-pong busy-poll"));
        }
        rows.addAll(List.of("jdk-spin, open loop at 20,000/s", "native-spin, open loop at 20,000/s"));
        if (CC) {
            rows.add("C ping-pong busy-poll, open loop at 20,000/s");
        }
        return rows;
    }

    private static List<String> csvRows() {
        List<String> rows = new ArrayList<>(List.of("no buffering", "BufferedInputStream", "manual 8 KiB buffer",
                "whole-file buffer", "wirespeed ByteCounts.count(Path)", "wirespeed ByteCounts (map, then count)"));
        if (WC) {
            rows.add("wc -l");
        }
        return rows;
    }

    private static List<String> largeFileRows() {
        List<String> rows = new ArrayList<>(List.of("manual 8 KiB buffer", "whole-file buffer",
                "wirespeed ByteCounts.count(Path)", "wirespeed ByteCounts (map, then count)"));
        if (WC) {
            rows.add("wc -l");
        }
        return rows;
    }

    /** The findings' titles with their experiment, in report order. */
    private static List<String> findingTitles() {
        List<String> titles = new ArrayList<>(List.of(
                "bypassing the JDK's SocketChannel pays: the article's p50 went 6.8 -> 5.7 us with a direct native read "
                        + "(< 1x) (latency)",
                "target: the native path's p50 and p99 are no worse than the JDK path's, mode for mode (<= 1x within 5% "
                        + "(up to 1.05x)) (latency)"));
        if (CC) {
            titles.add("target: the native and JDK paths' p50 is within 1.05x the C ping-pong's, mode for mode "
                    + "(<= 1.05x) (latency)");
        }
        titles.addAll(List.of("buffering speeds byte-by-byte reading up many times (CSV) (>= 10x) (files)",
                "a manual 8 KiB buffer beats BufferedInputStream's read() per byte (CSV) (> 1x) (files)",
                "a whole-file buffer is no faster than 8 KiB (CSV) (<= 1.05x) (files)"));
        if (WC) {
            titles.add("target: wirespeed's newline count is at least as fast as wc -l (large file) (>= 1x) (files)");
        }
        return titles;
    }

    /** A table as the terminal shows it: title, header and rows split into cells, notes. */
    private record Printed(String title, List<String> header, List<List<String>> rows, List<String> notes) {
        List<String> firstColumn() {
            return rows.stream().map(row -> row.get(0)).toList();
        }
    }

    /** {@return the table whose title is the {@code index}th line matching {@code title}, with {@code rows} rows} */
    private static Printed table(Pattern title, int index, int rows) {
        List<String> lines = out.lines().toList();
        int at = -1;
        for (int i = 0, seen = 0; i < lines.size(); i++) {
            if (title.matcher(lines.get(i)).matches() && seen++ == index) {
                at = i;
                break;
            }
        }
        assertTrue(at > 0, "no table " + index + " titled " + title + " in:\n" + out);
        assertEquals("", lines.get(at - 1), "a blank line before each table");
        List<List<String>> cells = new ArrayList<>();
        for (int i = at + 1; i <= at + 1 + rows; i++) {
            assertTrue(lines.get(i).startsWith("  "), lines.get(i));
            cells.add(List.of(lines.get(i).substring(2).split(" {2,}")));
        }
        List<String> notes = new ArrayList<>();
        for (int i = at + 2 + rows; i < lines.size() && lines.get(i).startsWith("  "); i++) {
            notes.add(lines.get(i).substring(2));
        }
        return new Printed(lines.get(at), cells.get(0), cells.subList(1, cells.size()), notes);
    }

    /** {@return the placements the latency experiment measured, from results.json, in its order} */
    private static List<Placement> latencyPlacements() throws Exception {
        return ResultsFiles.read(dir.resolve("results.json")).measurements().stream()
                .filter(m -> m.series().experiment().equals("latency")).map(m -> m.placement()).distinct().toList();
    }

    @Test
    void theRunSucceedsAndLeavesTheLabsCpusAsTheyWere() {
        assertEquals(ExitCode.OK, code, out + err);
        assertEquals(before, after, "files pins the lab's thread to one CPU, and lets go again");
        assertTrue(out.startsWith("wirespeed lab (quick): "), out);
    }

    @Test
    void theLatencyTableOfEachPlacementNamesItsRowsPercentilesAndTheArticlesFigures() throws Exception {
        List<Placement> placements = latencyPlacements();
        assertFalse(placements.isEmpty(), "latency measured somewhere");
        Pattern title = Pattern.compile("latency: TCP loopback round trips, 100-byte bodies, 2000 measured after 1000 "
                + "warm-up \\(no timed warm-up, echoes not primed\\), microseconds, median of 1 run\\(s\\); (.+)");
        for (int i = 0; i < placements.size(); i++) {
            Printed table = table(title, i, latencyRows().size());
            Matcher where = title.matcher(table.title());
            assertTrue(where.matches());
            Placement placement = placements.get(i);
            assertEquals(placement + " (" + placement.cpus() + ")", where.group(1));
            assertEquals(List.of("case", "p50 [min-max]", "p90", "p99", "p99.9", "p99.99", "max", "article p50 / p90"),
                    table.header());
            assertEquals(latencyRows(), table.firstColumn());
            for (List<String> row : table.rows()) {
                assertTrue(row.get(1).matches("[\\d,]+\\.\\d \\[[\\d,]+\\.\\d-[\\d,]+\\.\\d]"), row.toString());
                String article = switch (row.get(0)) {
                    case "jdk-spin" -> "6.8 / 8.2";
                    case "native-spin" -> "5.7 / 7.1";
                    default -> "-";
                };
                assertEquals(article, row.get(7), row.toString());
            }
            assertEquals(List.of("round trips beyond each percentile per run: p99 20, p99.9 2, p99.99 0; a tail with "
                    + "fewer than 10 beyond it is a hint, not a figure, and no target is judged on it", "open loop: frame "
                    + "i is due at i / 20,000 s and its round trip counts from then (coordinated omission corrected); "
                    + "the echo is the closed-loop row's", "the C ping-pong warms up for 1,000 round trips: it has no JIT "
                    + "to wait for", "a percentile the findings judge whose runs spread wider than their median (max - "
                    + "min > median) is set aside and judges no finding"), table.notes());
        }
    }

    @Test
    void theFilesTablesGiveEachCountersRateBesideTheArticlesOnTheCsvOnly() {
        Printed csv = table(Pattern.compile("files: counting newlines, article CSV, 200000 bytes, in memory, one core "
                + "\\(cpu\\d+\\); median of 3 runs \\[min-max]"), 0, csvRows().size());
        assertEquals(List.of("case", "MB/s [min-max]", "article MB/s"), csv.header());
        assertEquals(csvRows(), csv.firstColumn());
        List<String> article = new ArrayList<>(List.of("1.2", "288.6", "1,351.4", "1,063.8", "-", "-"));
        if (WC) {
            article.add("-");
        }
        assertEquals(article, csv.rows().stream().map(row -> row.get(2)).toList());
        Printed large = table(Pattern.compile("files: counting newlines, 31 MiB of the same lines, in memory, one core "
                + "\\(cpu\\d+\\); median of 3 runs \\[min-max]"), 0, largeFileRows().size());
        assertEquals(largeFileRows(), large.firstColumn());
        for (List<String> row : concat(csv.rows(), large.rows())) {
            assertTrue(row.get(1).matches("[\\d,]+\\.\\d \\[[\\d,]+\\.\\d-[\\d,]+\\.\\d]"), row.toString());
        }
        assertTrue(out.indexOf(csv.title()) > out.indexOf("latency: TCP loopback"), "latency, which starts processes, "
                + "runs before files, which pins the lab's thread");
    }

    private static <T> List<T> concat(List<T> a, List<T> b) {
        List<T> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /** {@return each finding's line in the terminal, its verdict word by its title} */
    private static Map<String, String> terminalVerdicts() {
        List<String> lines = out.lines().toList();
        int at = lines.indexOf("findings:");
        assertTrue(at > 0, out);
        Pattern line = Pattern.compile(" {2}\\[(holds|DOES NOT HOLD)] (.+)");
        Map<String, String> verdicts = new LinkedHashMap<>();
        for (int i = at + 1; i < lines.size() && lines.get(i).startsWith("  "); i += 2) {
            Matcher finding = line.matcher(lines.get(i));
            assertTrue(finding.matches(), lines.get(i));
            verdicts.put(finding.group(2), finding.group(1));
            assertTrue(lines.get(i + 1).matches(" {9}(worst of \\d+: |fails at \\d+ of \\d+: )?.+ = [\\d.]+x.*"),
                    "the figures in brief under " + lines.get(i) + ": " + lines.get(i + 1));
        }
        return verdicts;
    }

    /**
     * The other tests expect the C rows and their finding only where there is a C compiler, as the lab
     * adds them only there: this one skips where there is none, saying so, or fails where the build
     * requires one.
     */
    @Test
    void theCRowsAndTheirFindingAreThereWhereThereIsACCompiler() {
        Environment.assume(Feature.C_COMPILER, CC, "no cc on the PATH: the lab leaves out its C rows and their"
                + " finding, and so do the other tests' expectations");
        assertTrue(out.lines().anyMatch(l -> l.startsWith("  C ping-pong busy-poll, open loop at 20,000/s ")), out);
        assertTrue(terminalVerdicts().containsKey("target: the native and JDK paths' p50 is within 1.05x the C "
                + "ping-pong's, mode for mode (<= 1.05x) (latency)"), out);
    }

    @Test
    void theFindingsFollowTheTablesEachWithItsVerdictAndItsFiguresInBrief() {
        assertEquals(findingTitles(), List.copyOf(terminalVerdicts().keySet()));
    }

    @Test
    void theNotesSayWhatWasNotJudgedAndWhereTheTestFilesWere() {
        List<String> notes = out.lines().filter(l -> l.startsWith("note: ")).toList();
        if (CC) {
            assertTrue(notes.contains("note: latency: p99.9 targets are not judged: a run of 2,000 round trips leaves 2 "
                    + "beyond p99.9, fewer than 10; runs of at least 10,000 decide it"), notes.toString());
            assertTrue(notes.contains("note: latency: p99.99 targets are not judged: a run of 2,000 round trips leaves 0 "
                    + "beyond p99.99, fewer than 10; runs of at least 100,000 decide it"), notes.toString());
        }
        assertTrue(notes.contains("note: files: the test files are on tmpfs (/dev/shm), so they stay in memory")
                || notes.stream().anyMatch(n -> n.startsWith("note: files: no tmpfs with room; the test files are in ")),
                notes.toString());
        assertTrue(out.indexOf("\nnote: ") > out.indexOf("\nfindings:\n"), "the notes come last");
    }

    @Test
    void standardErrorShowsAProgressLineForEveryStepWithTheTimeLeft() throws Exception {
        List<String> lines = err.lines().toList();
        int steps = latencyPlacements().size() * latencyRows().size() + csvRows().size() + largeFileRows().size();
        assertEquals(steps, lines.size(), err);
        Pattern progress = Pattern.compile("\\[(\\d+)/" + steps + "] (.+) \\(\\d+s elapsed(, about \\d+s left)?\\)");
        for (int i = 0; i < steps; i++) {
            Matcher line = progress.matcher(lines.get(i));
            assertTrue(line.matches(), lines.get(i));
            assertEquals(String.valueOf(i + 1), line.group(1), lines.get(i));
        }
        assertTrue(lines.get(0).startsWith("[1/" + steps + "] latency " + latencyPlacements().get(0) + ": jdk run 1/1 ("),
                lines.get(0));
        assertTrue(lines.getLast().startsWith("[" + steps + "/" + steps + "] files 31 MiB of the same lines: "),
                lines.getLast());
    }

    @Test
    void itEndsByNamingTheFilesItWrote() {
        assertTrue(out.endsWith("\nwrote " + dir.resolve("index.html") + ", " + dir.resolve("results.json") + " (schema "
                + dir.resolve("results.schema.json") + "), " + dir.resolve("results.csv") + " and "
                + dir.resolve("results.md") + "\n"), out);
    }

    @Test
    void resultsJsonIsValidAgainstTheSchemaBesideItAndNamesTheExperimentsInRegistryOrder() throws Exception {
        String json = Files.readString(dir.resolve("results.json"));
        assertEquals(List.of(), ResultsSchema.validate(json));
        assertEquals(ResultsFiles.schema(), Files.readString(dir.resolve("results.schema.json")));
        LabReport report = ResultsFiles.read(dir.resolve("results.json"));
        assertEquals("quick", report.mode().id());
        assertEquals(List.of("latency", "files"), report.experiments().stream().map(LabReport.Experiment::name).toList(),
                "the registry's order, not the command line's");
        assertEquals("\"Improving Java IO Performance: Buffering Techniques\" (2018): newlines counted in the article's "
                + "CSV and in a large file, four strategies, ours and wc -l", report.experiments().get(1).description());
        assertEquals(out.lines().filter(l -> l.startsWith("note: ")).map(l -> l.substring(6)).toList(), report.notes());
        Map<String, String> verdicts = terminalVerdicts();
        assertEquals(List.copyOf(verdicts.keySet()), report.findings().stream()
                .map(f -> f.title() + " (" + f.experiment() + ")").toList());
        for (Finding finding : report.findings()) {
            assertEquals(verdicts.get(finding.title() + " (" + finding.experiment() + ")"),
                    finding.holds() ? "holds" : "DOES NOT HOLD", finding.title());
        }
    }

    @Test
    void resultsCsvHasALineForEveryCellOfTheTables() throws Exception {
        List<String> csv = Files.readAllLines(dir.resolve("results.csv"));
        assertEquals("experiment,case,role,medium,size,placement,server_cpu,client_cpu,unit,percentile,median,min,max,runs,"
                + "published,of_ceiling", csv.get(0));
        int placements = latencyPlacements().size();
        assertEquals(placements * latencyRows().size() * 6, csv.stream().filter(l -> l.startsWith("latency,")).count(),
                "six percentiles of every latency row at every placement");
        List<String> files = csv.stream().filter(l -> l.startsWith("files,")).toList();
        assertEquals(csvRows().size() + largeFileRows().size(), files.size(), String.join("\n", files));
        String number = "[\\d.]+";
        String cells = ",one core,\\d+,\\d+,MB/s,," + number + "," + number + "," + number + ",3,";
        List<String> expected = new ArrayList<>(List.of(
                "files,no buffering,article,file,200000" + cells + "1\\.1743,",
                "files,BufferedInputStream,article,file,200000" + cells + "288\\.6003,",
                "files,manual 8 KiB buffer,article,file,200000" + cells + "1351\\.3514,",
                "files,whole-file buffer,article,file,200000" + cells + "1063\\.8298,",
                "files,wirespeed ByteCounts\\.count\\(Path\\),library,file,200000" + cells + ",",
                "files,\"wirespeed ByteCounts \\(map, then count\\)\",library,file,200000" + cells + ","));
        if (WC) {
            expected.add("files,wc -l,ceiling,file,200000" + cells + ",");
        }
        expected.addAll(List.of(
                "files,manual 8 KiB buffer,article,file,33554420" + cells + ",",
                "files,whole-file buffer,article,file,33554420" + cells + ",",
                "files,wirespeed ByteCounts\\.count\\(Path\\),library,file,33554420" + cells + ",",
                "files,\"wirespeed ByteCounts \\(map, then count\\)\",library,file,33554420" + cells + ","));
        if (WC) {
            expected.add("files,wc -l,ceiling,file,33554420" + cells + ",");
        }
        for (int i = 0; i < expected.size(); i++) {
            assertTrue(files.get(i).matches(expected.get(i)), files.get(i) + " !~ " + expected.get(i));
        }
        assertTrue(csv.stream().anyMatch(l -> l.matches("latency,native-spin,library,tcp,100,[A-Za-z ]+,\\d+,\\d+,us,p50,"
                + number + "," + number + "," + number + ",1,5\\.7000,")), "the article's p50 beside ours");
    }

    @Test
    void resultsMdHasEveryTableAndEveryFindingWithTheTerminalsVerdict() throws Exception {
        String md = Files.readString(dir.resolve("results.md"));
        int latency = md.indexOf("\n### `latency`: ");
        int files = md.indexOf("\n### `files`: \"Improving Java IO Performance: Buffering Techniques\" (2018): ");
        assertTrue(latency > 0 && files > latency, "each experiment under its heading, in registry order:\n" + md);
        assertTrue(md.contains("\n| case | p50 [min-max] | p90 | p99 | p99.9 | p99.99 | max | article p50 / p90 |\n"
                + "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n| jdk | "), md);
        assertTrue(md.contains("\n| case | MB/s [min-max] | article MB/s |\n| --- | ---: | ---: |\n| no buffering | "), md);
        int findings = md.indexOf("\n### Findings\n\n| experiment | claim | figures | verdict |\n| --- | --- | --- | --- |\n");
        assertTrue(findings > files, md);
        Map<String, String> verdicts = terminalVerdicts();
        List<String> rows = md.substring(findings).lines().filter(l -> l.startsWith("| latency |")
                || l.startsWith("| files |")).toList();
        assertEquals(verdicts.size(), rows.size(), String.join("\n", rows));
        int i = 0;
        for (Map.Entry<String, String> finding : verdicts.entrySet()) {
            String row = rows.get(i++);
            String title = finding.getKey().substring(0, finding.getKey().lastIndexOf(" ("));
            assertTrue(row.contains(" | " + title.replace("*", "\\*") + " | "), row + " has " + title);
            assertTrue(row.endsWith(finding.getValue().equals("holds") ? " | holds |" : " | **does not hold** |"), row);
        }
        assertTrue(md.contains("\n### Notes\n\n- "), md);
        out.lines().filter(l -> l.startsWith("note: ")).forEach(note -> assertTrue(md.contains("\n- " + note.substring(6)
                + "\n"), note));
    }

    @Test
    void indexHtmlOpensWithTheSummaryThenEachExperimentsChartsAndFindings() throws Exception {
        String html = Files.readString(dir.resolve("index.html"));
        int summary = html.indexOf("<h2 id=\"summary\">Summary</h2>");
        int latency = html.indexOf("<h2 id=\"latency\">latency</h2>");
        int files = html.indexOf("<h2 id=\"files\">files</h2>");
        assertTrue(summary > 0 && summary < html.indexOf("<svg") && latency > summary && files > latency, html);
        assertEquals(latencyPlacements().size(), Pattern.compile("<svg class=\"chart percentiles\"").matcher(html)
                .results().count(), "a percentile chart per placement");
        assertEquals(2, Pattern.compile("<svg class=\"chart\"").matcher(html.substring(files)).results().count(),
                "files: a bar chart for the CSV and one for the large file");
        for (Map.Entry<String, String> finding : terminalVerdicts().entrySet()) {
            String title = finding.getKey().substring(0, finding.getKey().lastIndexOf(" ("));
            String verdict = finding.getValue().equals("holds") ? "<span class=\"holds\">holds</span>"
                    : "<span class=\"fails\">does not hold</span>";
            assertTrue(html.contains("<li>" + verdict + ": " + title.replace("&", "&amp;").replace("<", "&lt;")
                    .replace(">", "&gt;").replace("\"", "&quot;") + "<br><small>"), title);
        }
    }

    private record Run(int code, String out, String err) {
    }

    private static Run lab(String... args) {
        StringWriter stdout = new StringWriter();
        StringWriter stderr = new StringWriter();
        var commandLine = Main.commandLine();
        commandLine.setOut(new PrintWriter(stdout));
        commandLine.setErr(new PrintWriter(stderr));
        List<String> command = new ArrayList<>(List.of("lab"));
        command.addAll(List.of(args));
        return new Run(commandLine.execute(command.toArray(String[]::new)), stdout.toString(), stderr.toString());
    }

    @Test
    void refusesAnUnknownExperimentNamingTheKnownOnes() {
        Run run = lab("nosuch");
        assertEquals(ExitCode.USAGE, run.code());
        assertEquals("wirespeed lab: unknown experiment 'nosuch'; known: tcp, unix, pipe, stream-tls, latency, idle, "
                + "shm, tails, many, hostile, files, readall\n", run.err());
        assertEquals("", run.out());
    }

    @Test
    void refusesQuickAndFullTogether() {
        Run run = lab("--quick", "--full");
        assertEquals(ExitCode.USAGE, run.code());
        assertEquals("wirespeed lab: --quick and --full exclude each other\n", run.err());
        assertEquals("", run.out());
    }

    @Test
    void refusesAnUnknownOptionWithTheUsage() {
        Run run = lab("--fast");
        assertEquals(ExitCode.USAGE, run.code());
        assertTrue(run.err().startsWith("Unknown option: '--fast'\nUsage: wirespeed lab "), run.err());
    }

    @Test
    void theHelpListsEveryExperimentAndMarksThoseOnlyRunWhenNamed() {
        Run run = lab("--help");
        assertEquals(ExitCode.OK, run.code());
        String help = run.out().replaceAll("\\s+", " ");
        assertTrue(help.contains("which to run: tcp, unix, pipe, stream-tls*, latency, idle*, shm*, tails*, many*, hostile*, "
                + "files, "
                + "readall (default: "
                + "all but those marked *, which run when named or with --full)"), run.out());
    }
}
