package dev.wirespeed.lab.experiments.files;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.wirespeed.lab.env.Jvm;
import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.experiment.Mode;
import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.result.Table;
import java.io.PrintWriter;
import java.io.Writer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The files experiment's tables and findings on synthetic rates: each finding where it holds and where it fails. */
class FilesExperimentTest {
    private static final LabContext LAB = new LabContext(Mode.DEFAULT, new Jvm("unused", null),
            new PrintWriter(Writer.nullWriter()), false);
    private static final Placement CPU1 = Placement.inProcess(1);
    /** The article's CSV: 10,000 lines of 20 bytes. */
    private static final long CSV = 200_000;
    /** A quick run's large file: the whole lines of 32 MiB. */
    private static final long LARGE = 33_554_420;

    /** Every counter at the MB/s given, each as one exact figure; a counter left out did not run. */
    private static Results<FilesCase, Rate> results(Map<Counter, Double> csv, Map<Counter, Double> large) {
        Results<FilesCase, Rate> results = new Results<>();
        for (Counter counter : Counter.values()) {
            if (csv.containsKey(counter)) {
                results.put(new FilesCase(FilesCase.Input.CSV, counter), new Rate(CPU1, CSV, Stats.exact(csv.get(counter))));
            }
        }
        for (Counter counter : Counter.values()) {
            if (large.containsKey(counter)) {
                results.put(new FilesCase(FilesCase.Input.LARGE, counter),
                        new Rate(CPU1, LARGE, new Stats(large.get(counter), large.get(counter) * 0.9,
                                large.get(counter) * 1.1, 5)));
            }
        }
        return results;
    }

    /** Buffering 25x, the manual buffer 6x BufferedInputStream, the whole file 0.93x the manual one, ours 1.5x wc. */
    private static Results<FilesCase, Rate> holding() {
        return results(Map.of(Counter.NO_BUFFERING, 10.0, Counter.BUFFERED_INPUT_STREAM, 250.0, Counter.MANUAL_8K, 1500.0,
                Counter.WHOLE_FILE, 1400.0, Counter.COUNT_PATH, 9000.0, Counter.COUNT_MAPPED, 8000.0),
                Map.of(Counter.MANUAL_8K, 1600.0, Counter.WHOLE_FILE, 1500.0, Counter.COUNT_PATH, 9000.0,
                        Counter.COUNT_MAPPED, 8500.0, Counter.WC, 6000.0));
    }

    /** Buffering 8x, the manual buffer level with BufferedInputStream, the whole file 1.1x, ours 0.83x wc. */
    private static Results<FilesCase, Rate> failing() {
        return results(Map.of(Counter.NO_BUFFERING, 50.0, Counter.BUFFERED_INPUT_STREAM, 400.0, Counter.MANUAL_8K, 400.0,
                Counter.WHOLE_FILE, 440.0, Counter.COUNT_PATH, 9000.0, Counter.COUNT_MAPPED, 8000.0),
                Map.of(Counter.MANUAL_8K, 1600.0, Counter.WHOLE_FILE, 1500.0, Counter.COUNT_PATH, 5000.0,
                        Counter.COUNT_MAPPED, 4000.0, Counter.WC, 6000.0));
    }

    private static Finding finding(List<Finding> findings, String claim) {
        return findings.stream().filter(f -> f.claim().equals(claim)).findFirst()
                .orElseThrow(() -> new AssertionError("no finding '" + claim + "' in " + findings));
    }

    private static void assertVerdict(boolean holds, String figures, Finding finding) {
        assertEquals(figures, finding.figures(), finding.title());
        assertEquals(holds, finding.holds(), finding.title() + ": " + finding.figures());
    }

    private static final String BUFFERING = "buffering speeds byte-by-byte reading up many times (CSV)";
    private static final String MANUAL = "a manual 8 KiB buffer beats BufferedInputStream's read() per byte (CSV)";
    private static final String WHOLE = "a whole-file buffer is no faster than 8 KiB (CSV)";
    private static final String WC = "wirespeed's newline count is at least as fast as wc -l (large file)";

    @Test
    void theFindingsAreTheArticlesThreeClaimsAndOurTargetAgainstWc() {
        List<Finding> findings = new FilesExperiment().findings(holding(), LAB);
        assertEquals(List.of("buffering speeds byte-by-byte reading up many times (CSV) (>= 10x)",
                "a manual 8 KiB buffer beats BufferedInputStream's read() per byte (CSV) (> 1x)",
                "a whole-file buffer is no faster than 8 KiB (CSV) (<= 1.05x)",
                "target: wirespeed's newline count is at least as fast as wc -l (large file) (>= 1x)"),
                findings.stream().map(Finding::title).toList());
    }

    @Test
    void bufferingHoldsAtTenTimesByteByByteReadingAndFailsBelow() {
        assertVerdict(true, "the article's CSV: BufferedInputStream 250.0 MB/s / no buffering 10.00 MB/s = 25.00x; "
                + "article 245.75x", finding(new FilesExperiment().findings(holding(), LAB), BUFFERING));
        assertVerdict(false, "the article's CSV: BufferedInputStream 400.0 MB/s / no buffering 50.00 MB/s = 8.00x; "
                + "article 245.75x", finding(new FilesExperiment().findings(failing(), LAB), BUFFERING));
    }

    @Test
    void theManualBufferMustBeatBufferedInputStreamStrictly() {
        assertVerdict(true, "the article's CSV: manual 8 KiB buffer 1,500.0 MB/s / BufferedInputStream 250.0 MB/s = "
                + "6.00x; article 4.68x", finding(new FilesExperiment().findings(holding(), LAB), MANUAL));
        assertVerdict(false, "the article's CSV: manual 8 KiB buffer 400.0 MB/s / BufferedInputStream 400.0 MB/s = "
                + "1.00x; article 4.68x", finding(new FilesExperiment().findings(failing(), LAB), MANUAL));
    }

    @Test
    void theWholeFileBufferHoldsUpToFivePercentFasterAndFailsBeyond() {
        assertVerdict(true, "the article's CSV: whole-file buffer 1,400.0 MB/s / manual 8 KiB buffer 1,500.0 MB/s = "
                + "0.93x; article 0.79x", finding(new FilesExperiment().findings(holding(), LAB), WHOLE));
        assertVerdict(false, "the article's CSV: whole-file buffer 440.0 MB/s / manual 8 KiB buffer 400.0 MB/s = "
                + "1.10x; article 0.79x", finding(new FilesExperiment().findings(failing(), LAB), WHOLE));
    }

    @Test
    void ourCountIsJudgedAgainstWcOnTheLargeFileWhereWcRan() {
        assertVerdict(true, "31 MiB file: wirespeed ByteCounts.count(Path) 9,000.0 MB/s [8,100.0-9,900.0] / wc -l "
                + "6,000.0 MB/s [5,400.0-6,600.0] = 1.50x", finding(new FilesExperiment().findings(holding(), LAB), WC));
        assertVerdict(false, "31 MiB file: wirespeed ByteCounts.count(Path) 5,000.0 MB/s [4,500.0-5,500.0] / wc -l "
                + "6,000.0 MB/s [5,400.0-6,600.0] = 0.83x", finding(new FilesExperiment().findings(failing(), LAB), WC));

        Results<FilesCase, Rate> withoutWc = results(Map.of(Counter.NO_BUFFERING, 10.0, Counter.BUFFERED_INPUT_STREAM,
                250.0, Counter.MANUAL_8K, 1500.0, Counter.WHOLE_FILE, 1400.0), Map.of(Counter.COUNT_PATH, 9000.0));
        assertEquals(List.of(BUFFERING, MANUAL, WHOLE),
                new FilesExperiment().findings(withoutWc, LAB).stream().map(Finding::claim).toList(),
                "no wc -l on the PATH, no target against it");
    }

    @Test
    void aTableForEachFileWithTheArticlesRatesBesideTheCsvOnly() {
        List<Table> tables = new FilesExperiment().tables(holding(), LAB);
        assertEquals(2, tables.size());
        Table csv = tables.get(0);
        assertEquals("files: counting newlines, article CSV, 200000 bytes, in memory, one core (cpu1); median of 5 runs "
                + "[min-max]", csv.title());
        assertEquals(List.of("case", "MB/s [min-max]", "article MB/s"), csv.header());
        assertEquals(List.of(
                List.of("no buffering", "10.0 [10.0-10.0]", "1.2"),
                List.of("BufferedInputStream", "250.0 [250.0-250.0]", "288.6"),
                List.of("manual 8 KiB buffer", "1,500.0 [1,500.0-1,500.0]", "1,351.4"),
                List.of("whole-file buffer", "1,400.0 [1,400.0-1,400.0]", "1,063.8"),
                List.of("wirespeed ByteCounts.count(Path)", "9,000.0 [9,000.0-9,000.0]", "-"),
                List.of("wirespeed ByteCounts (map, then count)", "8,000.0 [8,000.0-8,000.0]", "-")), csv.rows());
        Table large = tables.get(1);
        assertEquals("files: counting newlines, 31 MiB of the same lines, in memory, one core (cpu1); median of 5 runs "
                + "[min-max]", large.title());
        assertEquals(List.of(
                List.of("manual 8 KiB buffer", "1,600.0 [1,440.0-1,760.0]", "-"),
                List.of("whole-file buffer", "1,500.0 [1,350.0-1,650.0]", "-"),
                List.of("wirespeed ByteCounts.count(Path)", "9,000.0 [8,100.0-9,900.0]", "-"),
                List.of("wirespeed ByteCounts (map, then count)", "8,500.0 [7,650.0-9,350.0]", "-"),
                List.of("wc -l", "6,000.0 [5,400.0-6,600.0]", "-")), large.rows());
        assertEquals(List.of(), large.notes());
    }
}
