package dev.wirespeed.lab.experiments.files;

import dev.wirespeed.contenders.ArticleCsv;
import dev.wirespeed.lab.env.InProcess;
import dev.wirespeed.lab.env.Tools;
import dev.wirespeed.lab.experiment.CaseRunner;
import dev.wirespeed.lab.experiment.Experiment;
import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.experiment.Mode;
import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.result.Check;
import dev.wirespeed.lab.result.Figure;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.Measurement;
import dev.wirespeed.lab.result.Medium;
import dev.wirespeed.lab.result.Rule;
import dev.wirespeed.lab.result.Series;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.result.Table;
import dev.wirespeed.lab.result.Unit;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * "Improving Java IO Performance: Buffering Techniques" (2018) on this machine: counting the newlines
 * of the article's CSV (10,000 lines of {@code 0,1,...,9}) and of a large file of the same lines, in
 * memory, with the article's four strategies, the library's two counts, and {@code wc -l} as the
 * ceiling. Runs in the lab's own JVM, its thread pinned to one CPU.
 */
public final class FilesExperiment implements Experiment<FilesCase, Rate> {

    /** Creates the experiment. */
    public FilesExperiment() {
    }

    @Override
    public String name() {
        return "files";
    }

    @Override
    public String description() {
        return "\"Improving Java IO Performance: Buffering Techniques\" (2018): newlines counted in the article's CSV "
                + "and in a large file, four strategies, ours and wc -l";
    }

    @Override
    public boolean inProcess() {
        return true;
    }

    /** {@return the large file's size for this mode} */
    static long largeSize(Mode mode) {
        return switch (mode) {
            case QUICK -> 32L << 20;
            case DEFAULT -> 128L << 20;
            case FULL -> 1L << 30;
        };
    }

    @Override
    public List<FilesCase> cases(LabContext lab) {
        List<FilesCase> cases = new ArrayList<>();
        for (FilesCase.Input input : FilesCase.Input.values()) {
            for (Counter counter : Counter.values()) {
                if ((counter.perByte() && input == FilesCase.Input.LARGE) || (counter == Counter.WC && !Tools.has("wc"))) {
                    continue;
                }
                cases.add(new FilesCase(input, counter));
            }
        }
        return cases;
    }

    @Override
    public CaseRunner<FilesCase, Rate> open(LabContext lab) throws IOException {
        Path dir = memoryBackedDirectory(lab);
        Map<FilesCase.Input, Path> files = new EnumMap<>(FilesCase.Input.class);
        files.put(FilesCase.Input.CSV, ArticleCsv.write(dir.resolve("simple-csv-file.csv"), ArticleCsv.ARTICLE_LINES));
        files.put(FilesCase.Input.LARGE, ArticleCsv.write(dir.resolve("lines.csv"),
                largeSize(lab.mode()) / ArticleCsv.LINE_LENGTH));
        InProcess pinned = InProcess.pin(lab::note);
        return new CaseRunner<>() {
            @Override
            public Rate run(FilesCase kase) throws IOException, InterruptedException {
                Path file = files.get(kase.input());
                long size = Files.size(file);
                lab.progress("files " + label(kase.input(), size) + ": " + kase.counter().label());
                Stats mb = measure(kase.counter(), file, size, size / ArticleCsv.LINE_LENGTH, lab.mode());
                lab.stepDone();
                return new Rate(pinned.placement(), size, mb);
            }

            @Override
            public void close() throws IOException {
                pinned.close();
                for (Path file : files.values()) {
                    Files.deleteIfExists(file);
                }
                Files.deleteIfExists(dir);
            }
        };
    }

    /**
     * A folder for the test files on tmpfs ({@code /dev/shm}) where there is one with room: "cached"
     * must mean in memory, and a VM that reclaims page cache evicts an ordinary cached file between
     * runs. Elsewhere the temp folder, with a note.
     */
    private static Path memoryBackedDirectory(LabContext lab) throws IOException {
        Path shm = Path.of("/dev/shm");
        if (Files.isDirectory(shm) && Files.isWritable(shm)
                && Files.getFileStore(shm).getUsableSpace() > 2 * (largeSize(lab.mode()) + (1 << 20))) {
            lab.note("files: the test files are on tmpfs (/dev/shm), so they stay in memory");
            return Files.createTempDirectory(shm, "wirespeed-files-");
        }
        lab.note("files: no tmpfs with room; the test files are in " + System.getProperty("java.io.tmpdir")
                + " and may be evicted from the page cache between runs");
        return Files.createTempDirectory("wirespeed-files-");
    }

    private static String label(FilesCase.Input input, long size) {
        return input == FilesCase.Input.CSV ? "article CSV, " + size + " bytes"
                : String.format(Locale.ROOT, "%d MiB of the same lines", size >> 20);
    }

    /**
     * MB/s of one counter: warmed up for ~150 ms of calls (100 in quick mode; a small file's count is
     * then compiled, as JMH would have it), then {@code runs + 2} timed runs of at least ~100 ms of
     * work each, sized by the warmed pace.
     */
    private static Stats measure(Counter counter, Path file, long size, long lines, Mode mode)
            throws IOException, InterruptedException {
        long warmNanos = mode == Mode.QUICK ? 100_000_000L : 150_000_000L;
        long warmStart = System.nanoTime();
        long once;
        do {
            once = time(counter, file, lines);
        } while (System.nanoTime() - warmStart < warmNanos);
        int reps = (int) Math.max(1, Math.min(100_000, 100_000_000L / Math.max(1, once)));
        List<Double> mb = new ArrayList<>();
        for (int run = 0; run < mode.runs() + 2; run++) {
            long nanos = 0;
            for (int rep = 0; rep < reps; rep++) {
                nanos += time(counter, file, lines);
            }
            mb.add(size * (double) reps * 1e3 / nanos);
        }
        return Stats.of(mb);
    }

    private static long time(Counter counter, Path file, long lines) throws IOException, InterruptedException {
        long t0 = System.nanoTime();
        long counted = counter.count(file);
        long nanos = System.nanoTime() - t0;
        if (counted != lines) {
            throw new IOException(counter.label() + " counted " + counted + " newlines in " + file + ", expected " + lines);
        }
        return nanos;
    }

    /** {@return the article's MB/s for a case: its ms per count of the CSV, as a rate; NaN elsewhere} */
    private static double published(FilesCase kase, long size) {
        return kase.input() == FilesCase.Input.CSV ? size / 1e3 / kase.counter().publishedMs() : Double.NaN;
    }

    @Override
    public List<Measurement> measurements(Results<FilesCase, Rate> results, LabContext lab) {
        List<Measurement> rows = new ArrayList<>();
        for (FilesCase kase : results.cases()) {
            Rate rate = results.get(kase);
            rows.add(new Series(name(), kase.counter().label(), kase.counter().role(), Medium.FILE, rate.size())
                    .at(rate.placement(), Unit.MB_PER_S, rate.mbPerSec()).published(published(kase, rate.size())));
        }
        return rows;
    }

    @Override
    public List<Table> tables(Results<FilesCase, Rate> results, LabContext lab) {
        List<Table> tables = new ArrayList<>();
        for (FilesCase.Input input : FilesCase.Input.values()) {
            List<FilesCase> cases = results.cases(c -> c.input() == input);
            if (cases.isEmpty()) {
                continue;
            }
            Rate first = results.get(cases.get(0));
            List<List<String>> lines = new ArrayList<>();
            for (FilesCase kase : cases) {
                Stats mb = results.get(kase).mbPerSec();
                double published = published(kase, first.size());
                lines.add(List.of(kase.counter().label(), String.format(Locale.ROOT, "%,.1f [%,.1f-%,.1f]", mb.median(),
                        mb.min(), mb.max()), Double.isNaN(published) ? "-" : String.format(Locale.ROOT, "%,.1f", published)));
            }
            tables.add(new Table(String.format(Locale.ROOT, "files: counting newlines, %s, in memory, %s; median of %d "
                    + "runs [min-max]", label(input, first.size()), first.placement(), lab.mode().runs() + 2),
                    List.of("case", "MB/s [min-max]", "article MB/s"), lines, List.of()));
        }
        return tables;
    }

    @Override
    public List<Finding> findings(Results<FilesCase, Rate> results, LabContext lab) {
        List<Finding> findings = new ArrayList<>();
        findings.add(Finding.claim(name(), "buffering speeds byte-by-byte reading up many times (CSV)", Rule.atLeast(10),
                170.308 / 0.693, List.of(check(results, FilesCase.Input.CSV, Counter.BUFFERED_INPUT_STREAM,
                        Counter.NO_BUFFERING))));
        findings.add(Finding.claim(name(), "a manual 8 KiB buffer beats BufferedInputStream's read() per byte (CSV)",
                Rule.above(1), 0.693 / 0.148, List.of(check(results, FilesCase.Input.CSV, Counter.MANUAL_8K,
                        Counter.BUFFERED_INPUT_STREAM))));
        findings.add(Finding.claim(name(), "a whole-file buffer is no faster than 8 KiB (CSV)", Rule.atMost(1.05),
                0.148 / 0.188, List.of(check(results, FilesCase.Input.CSV, Counter.WHOLE_FILE, Counter.MANUAL_8K))));
        if (results.has(new FilesCase(FilesCase.Input.LARGE, Counter.WC))) {
            findings.add(Finding.target(name(), "wirespeed's newline count is at least as fast as wc -l (large file)",
                    Rule.atLeast(1), List.of(check(results, FilesCase.Input.LARGE, Counter.COUNT_PATH, Counter.WC))));
        }
        return findings;
    }

    private static Check check(Results<FilesCase, Rate> results, FilesCase.Input input, Counter a, Counter b) {
        Rate ra = results.get(new FilesCase(input, a));
        Rate rb = results.get(new FilesCase(input, b));
        return new Check(input == FilesCase.Input.CSV ? "the article's CSV" : (ra.size() >> 20) + " MiB file",
                new Figure(a.label(), ra.mbPerSec(), Unit.MB_PER_S), new Figure(b.label(), rb.mbPerSec(), Unit.MB_PER_S));
    }
}
