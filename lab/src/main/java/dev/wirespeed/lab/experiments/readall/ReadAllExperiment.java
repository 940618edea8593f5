package dev.wirespeed.lab.experiments.readall;

import dev.wirespeed.io.ReadAll;
import dev.wirespeed.lab.env.InProcess;
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
import dev.wirespeed.lab.result.Role;
import dev.wirespeed.lab.result.Rule;
import dev.wirespeed.lab.result.Series;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.result.Table;
import dev.wirespeed.lab.result.Unit;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The JDK-8193832 review thread ({@code InputStream.readAllBytes} memory and speed) on this machine:
 * for every length of the thread's table (plus 1 MiB and, with {@code --full}, 64 MiB), the bytes
 * allocated per call (the thread's {@code N_old} and {@code N_new} formulas beside JDK 25 and the
 * library, measured with {@code ThreadMXBean#getThreadAllocatedBytes}) and calls per second, for a
 * stream of unknown size and for a cached file. Ours and the JDK are timed in interleaved blocks and
 * compared block by block. Runs in the lab's own JVM, its thread pinned to one CPU.
 */
public final class ReadAllExperiment implements Experiment<Integer, ReadAllCell> {
    /** The thread's lengths. */
    static final int[] THREAD_LENGTHS = {8191, 8192, 8193, 16383, 16384, 16385, 32767, 32768, 32769, 65535, 65536, 65537,
        131071, 131072, 131073, 262143, 262144, 262145};
    /** The buffer size B of the thread's formulas. */
    private static final long B = 8192;
    /** How far a block's median paired ratio may fall below 1 before "at least as fast" fails. */
    static final double SPEED_TOLERANCE = 0.05;

    /** Creates the experiment. */
    public ReadAllExperiment() {
    }

    @Override
    public String name() {
        return "readall";
    }

    @Override
    public String description() {
        return "JDK-8193832 review thread: bytes allocated per call (the thread's formulas beside JDK 25 and ours) and "
                + "calls per second, for a stream of unknown size and a file, at every length of the thread's table";
    }

    @Override
    public boolean inProcess() {
        return true;
    }

    @Override
    public List<Integer> cases(LabContext lab) {
        List<Integer> lengths = new ArrayList<>();
        for (int length : THREAD_LENGTHS) {
            lengths.add(length);
        }
        lengths.add(1 << 20);
        if (lab.mode() == Mode.FULL) {
            lengths.add(64 << 20); // seconds per reader: in the full run only (JMH has it too)
        }
        return lengths;
    }

    /** The thread's N_old: the JDK 9 implementation's bytes for length {@code l}. */
    static long nOld(long l) {
        long n = (long) Math.ceil(Math.log((double) l / B) / Math.log(2));
        n = Math.max(0, n);
        long m = B * ((1L << (n + 1)) - 1);
        return l == B << n ? m : m + l;
    }

    /** The thread's N_new: the proposed list of B-byte buffers. */
    static long nNew(long l) {
        return l <= B ? B + l : B + 2 * l;
    }

    @Override
    public CaseRunner<Integer, ReadAllCell> open(LabContext lab) throws IOException {
        Path dir = Files.createTempDirectory("wirespeed-readall-");
        InProcess pinned = InProcess.pin(lab::note);
        warmUp(dir, lab);
        return new CaseRunner<>() {
            @Override
            public ReadAllCell run(Integer length) throws IOException {
                lab.progress("readall " + length + " bytes");
                ReadAllCell cell = measure(length, dir, lab.mode(), pinned);
                lab.stepDone();
                return cell;
            }

            @Override
            public void close() throws IOException {
                pinned.close();
                Files.deleteIfExists(dir.resolve("data"));
                Files.deleteIfExists(dir);
            }
        };
    }

    /**
     * Runs every reader on a small, a medium and a large input, round and round, before anything is
     * timed: each reader then has every path it takes by length (a file below and above the native
     * provider's small-file bound, one and several windows) profiled and compiled, so that no length
     * pays for a path first taken there.
     */
    private static void warmUp(Path dir, LabContext lab) throws IOException {
        lab.progress("readall warm-up");
        int[] lengths = {8191, 65536, 1 << 20};
        List<byte[]> data = new ArrayList<>();
        List<Path> files = new ArrayList<>();
        for (int length : lengths) {
            byte[] bytes = new byte[length];
            new SplittableRandom(length).nextBytes(bytes);
            data.add(bytes);
            files.add(Files.write(dir.resolve("warm" + length), bytes));
        }
        long until = System.nanoTime() + (lab.mode() == Mode.QUICK ? 150_000_000L : 600_000_000L);
        try {
            while (System.nanoTime() < until) {
                for (int i = 0; i < lengths.length; i++) {
                    for (Reader reader : Reader.values()) {
                        check(reader.read(data.get(i), files.get(i)), lengths[i]);
                    }
                }
            }
        } finally {
            for (Path file : files) {
                Files.deleteIfExists(file);
            }
        }
    }

    private static ReadAllCell measure(int length, Path dir, Mode mode, InProcess pinned) throws IOException {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        byte[] data = new byte[length];
        new SplittableRandom(length).nextBytes(data);
        Path file = Files.write(dir.resolve("data"), data);
        Map<Reader, Long> bytes = new EnumMap<>(Reader.class);
        Map<Reader, Integer> calls = new EnumMap<>(Reader.class);
        Map<Reader, List<Double>> perSecond = new EnumMap<>(Reader.class);
        // Quick mode's speeds are a smoke test: a third of the warm-up and of each block.
        long scale = mode == Mode.QUICK ? 3 : 1;
        for (Reader reader : Reader.values()) {
            // Warm up for ~60 ms; its pace sizes the timed blocks to ~20 ms each.
            long warmStart = System.nanoTime();
            int warmCalls = 0;
            while (System.nanoTime() - warmStart < 60_000_000L / scale || warmCalls < 20) {
                check(reader.read(data, file), length);
                warmCalls++;
            }
            calls.put(reader, (int) Math.max(3, 20_000_000L / scale * warmCalls / (System.nanoTime() - warmStart)));
            // Steady-state allocation: the least of several warmed calls (a call may also load a class).
            long least = Long.MAX_VALUE;
            for (int call = 0; call < 5; call++) {
                long before = threads.getCurrentThreadAllocatedBytes();
                check(reader.read(data, file), length);
                least = Math.min(least, threads.getCurrentThreadAllocatedBytes() - before);
            }
            bytes.put(reader, least);
            perSecond.put(reader, new ArrayList<>());
        }
        // Interleaved: every run times each reader once, after a collection, so that heap growth and
        // collections fall on all of them alike; every other run in reverse order, so that no reader
        // always follows another. Many short blocks shrug off the machine's hiccups better than a few long ones.
        List<Reader> order = new ArrayList<>(List.of(Reader.values()));
        for (int run = 0; run < 3 * mode.runs(); run++) {
            for (Reader reader : order.reversed()) {
                System.gc();
                int n = calls.get(reader);
                long t0 = System.nanoTime();
                for (int call = 0; call < n; call++) {
                    check(reader.read(data, file), length);
                }
                perSecond.get(reader).add(n * 1e9 / (System.nanoTime() - t0));
            }
            order = order.reversed();
        }
        Map<Reader, Stats> ops = new EnumMap<>(Reader.class);
        perSecond.forEach((reader, values) -> ops.put(reader, Stats.of(values)));
        Map<Medium, Stats> paired = new EnumMap<>(Medium.class);
        for (Medium medium : List.of(Medium.STREAM, Medium.FILE)) {
            paired.put(medium, pairedRatios(perSecond.get(Reader.ours(medium)), perSecond.get(Reader.jdk(medium))));
        }
        return new ReadAllCell(pinned.placement(), bytes, ops, paired);
    }

    private static void check(byte[] read, int length) throws IOException {
        if (read.length != length) {
            throw new IOException("read " + read.length + " bytes, expected " + length);
        }
    }

    /**
     * {@return ours / the JDK's, block by block}: the two blocks of a run ran next to each other, so the
     * machine's drift cancels in their ratio
     */
    static Stats pairedRatios(List<Double> ours, List<Double> jdk) {
        List<Double> ratios = new ArrayList<>();
        for (int run = 0; run < ours.size(); run++) {
            ratios.add(ours.get(run) / jdk.get(run));
        }
        return Stats.of(ratios);
    }

    @Override
    public List<Measurement> measurements(Results<Integer, ReadAllCell> results, LabContext lab) {
        List<Measurement> rows = new ArrayList<>();
        for (int length : results.cases()) {
            ReadAllCell cell = results.get(length);
            boolean inThread = length <= 262145;
            rows.add(new Series(name(), "N_old (thread's formula)", Role.ARTICLE, Medium.STREAM, length)
                    .at(cell.placement(), Unit.BYTES, Stats.exact(nOld(length))).published(inThread ? nOld(length) : Double.NaN));
            rows.add(new Series(name(), "N_new (thread's formula)", Role.ARTICLE, Medium.STREAM, length)
                    .at(cell.placement(), Unit.BYTES, Stats.exact(nNew(length))).published(inThread ? nNew(length) : Double.NaN));
            for (Reader reader : Reader.values()) {
                Series series = new Series(name(), reader.label(), reader.role(), reader.medium(), length);
                rows.add(series.at(cell.placement(), Unit.BYTES, Stats.exact(cell.bytes().get(reader))));
                rows.add(series.at(cell.placement(), Unit.CALLS_PER_S, cell.callsPerSec().get(reader)));
            }
        }
        return rows;
    }

    @Override
    public List<Table> tables(Results<Integer, ReadAllCell> results, LabContext lab) {
        List<Integer> lengths = results.cases();
        if (lengths.isEmpty()) {
            return List.of();
        }
        String placement = results.get(lengths.get(0)).placement().toString();
        List<List<String>> memory = new ArrayList<>();
        List<List<String>> speed = new ArrayList<>();
        for (int length : lengths) {
            ReadAllCell cell = results.get(length);
            memory.add(List.of(String.format(Locale.ROOT, "%,d", length), String.format(Locale.ROOT, "%,d", nOld(length)),
                    String.format(Locale.ROOT, "%,d", nNew(length)), bytes(cell, Reader.JDK_STREAM),
                    bytes(cell, Reader.OURS_STREAM), bytes(cell, Reader.JDK_FILE), bytes(cell, Reader.OURS_FILE)));
            speed.add(List.of(String.format(Locale.ROOT, "%,d", length), calls(cell, Reader.JDK_STREAM),
                    calls(cell, Reader.OURS_STREAM), ratio(cell.paired().get(Medium.STREAM)), calls(cell, Reader.JDK_FILE),
                    calls(cell, Reader.OURS_FILE), ratio(cell.paired().get(Medium.FILE))));
        }
        String reads = "ours file: ReadAll.readAll(Path) read with " + ReadAll.fileReads();
        return List.of(
                new Table("readall: bytes allocated per call (B = 8192 in the thread's formulas), " + placement,
                        List.of("length", "N_old", "N_new", "JDK stream", "ours stream", "JDK file", "ours file"), memory,
                        List.of()),
                new Table(String.format(Locale.ROOT, "readall: calls per second, median of %d interleaved blocks of "
                        + "~20 ms; ours / JDK: median of the blocks' paired ratios (min-max)", 3 * lab.mode().runs()),
                        List.of("length", "JDK stream", "ours stream", "ours / JDK", "JDK file", "ours file", "ours / JDK"),
                        speed, List.of(reads)));
    }

    private static String bytes(ReadAllCell cell, Reader reader) {
        return String.format(Locale.ROOT, "%,d", cell.bytes().get(reader));
    }

    private static String calls(ReadAllCell cell, Reader reader) {
        return String.format(Locale.ROOT, "%,.0f", cell.callsPerSec().get(reader).median());
    }

    private static String ratio(Stats ratio) {
        return String.format(Locale.ROOT, "%.2fx (%.2f-%.2f)", ratio.median(), ratio.min(), ratio.max());
    }

    @Override
    public List<Finding> findings(Results<Integer, ReadAllCell> results, LabContext lab) {
        List<Finding> findings = new ArrayList<>();
        for (Medium medium : List.of(Medium.STREAM, Medium.FILE)) {
            Reader ours = Reader.ours(medium);
            Reader jdk = Reader.jdk(medium);
            List<Check> memory = new ArrayList<>();
            List<Check> speed = new ArrayList<>();
            for (int length : results.cases()) {
                ReadAllCell cell = results.get(length);
                String where = String.format(Locale.ROOT, "%,d bytes", length);
                memory.add(new Check(where, new Figure(ours.label(), Stats.exact(cell.bytes().get(ours)), Unit.BYTES),
                        new Figure(jdk.label(), Stats.exact(cell.bytes().get(jdk)), Unit.BYTES)));
                speed.add(new Check(where, new Figure("ours / JDK, paired blocks", cell.paired().get(medium), Unit.RATIO),
                        new Figure("parity", Stats.exact(1), Unit.RATIO)));
            }
            findings.add(Finding.target(name(), "wirespeed's readAll allocates no more than JDK 25's at every length ("
                    + medium + ")", Rule.atMost(1), memory));
            findings.add(Finding.target(name(), "wirespeed's readAll is at least as fast as JDK 25's at every length ("
                    + medium + "; the median of paired blocks)", Rule.atLeast(1).within(SPEED_TOLERANCE), speed));
        }
        List<Check> bound = new ArrayList<>();
        for (int length : results.cases()) {
            bound.add(new Check(String.format(Locale.ROOT, "%,d bytes", length), new Figure(Reader.OURS_FILE.label(),
                    Stats.exact(results.get(length).bytes().get(Reader.OURS_FILE)), Unit.BYTES),
                    new Figure("length + 16 KiB", Stats.exact(length + 16 * 1024), Unit.BYTES)));
        }
        findings.add(Finding.target(name(), "reading a file of known size allocates at most length + 16 KiB",
                Rule.atMost(1), bound));
        return findings;
    }
}
