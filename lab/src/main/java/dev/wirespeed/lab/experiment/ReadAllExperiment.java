package dev.wirespeed.lab.experiment;

import dev.wirespeed.io.ReadAll;
import dev.wirespeed.linux.LinuxFileReads;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The JDK-8193832 review thread ({@code InputStream.readAllBytes} memory and speed) on this machine:
 * for every length of the thread's table (plus 1 MiB and, with {@code --full}, 64 MiB), the bytes
 * allocated per call (the thread's {@code N_old} and {@code N_new} formulas beside JDK 25 and
 * wirespeed measured with {@code ThreadMXBean#getThreadAllocatedBytes}) and calls per second, for a
 * stream of unknown size and for a cached file. Runs in the lab's own JVM, on one pinned CPU.
 */
final class ReadAllExperiment {
    static final String NAME = "readall";
    /** The thread's lengths. */
    static final int[] THREAD_LENGTHS = {8191, 8192, 8193, 16383, 16384, 16385, 32767, 32768, 32769, 65535, 65536, 65537,
        131071, 131072, 131073, 262143, 262144, 262145};
    /** What is read: a stream of unknown size, or a file. */
    private static final List<String> KINDS = List.of("stream", "file");
    /** The buffer size B of the thread's formulas. */
    private static final long B = 8192;

    /** One way of reading everything. */
    @FunctionalInterface
    interface Reader {
        byte[] read(byte[] data, Path file) throws IOException;
    }

    static final Map<String, Reader> READERS = new LinkedHashMap<>();

    static {
        READERS.put(jdk("stream"), (data, file) -> stream(data).readAllBytes());
        READERS.put(ours("stream"), (data, file) -> ReadAll.readAll(stream(data)));
        READERS.put(jdk("file"), (data, file) -> Files.readAllBytes(file));
        READERS.put(ours("file"), (data, file) -> ReadAll.readAll(file));
    }

    private final LabRun lab;

    ReadAllExperiment(LabRun lab) {
        this.lab = lab;
    }

    List<Integer> lengths() {
        List<Integer> lengths = new ArrayList<>();
        for (int length : THREAD_LENGTHS) {
            lengths.add(length);
        }
        lengths.add(1 << 20);
        if (lab.mode == LabRun.Mode.FULL) {
            lengths.add(64 << 20); // seconds per reader: in the full run only (JMH has it too)
        }
        return lengths;
    }

    int steps() {
        return lengths().size();
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

    /** A stream of unknown size over {@code data} that does not override {@code readAllBytes}. */
    static InputStream stream(byte[] data) {
        return new InputStream() {
            private int at;

            @Override
            public int read() {
                return at < data.length ? data[at++] & 0xFF : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (len == 0) {
                    return 0;
                }
                if (at == data.length) {
                    return -1;
                }
                int n = Math.min(len, data.length - at);
                System.arraycopy(data, at, b, off, n);
                at += n;
                return n;
            }
        };
    }

    void run() throws IOException {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        String placement = InProcess.pin(lab);
        Path dir = Files.createTempDirectory("wirespeed-readall-");
        Map<Integer, Map<String, long[]>> memory = new LinkedHashMap<>();
        Map<Integer, Map<String, Stats>> speed = new LinkedHashMap<>();
        Map<Integer, Map<String, Pairs>> ratios = new LinkedHashMap<>();
        try {
            warmUp(dir);
            for (int length : lengths()) {
                lab.progress("readall " + length + " bytes");
                byte[] data = new byte[length];
                new SplittableRandom(length).nextBytes(data);
                Path file = Files.write(dir.resolve("data"), data);
                Map<String, long[]> bytes = new LinkedHashMap<>();
                Map<String, List<Double>> perSecond = new LinkedHashMap<>();
                Map<String, Integer> calls = new LinkedHashMap<>();
                for (Map.Entry<String, Reader> entry : READERS.entrySet()) {
                    Reader reader = entry.getValue();
                    // Warm up for ~60 ms; its pace sizes the timed blocks to ~20 ms each (a third of both with --quick,
                    // whose speeds are a smoke test, not a measurement).
                    long scale = lab.mode == LabRun.Mode.QUICK ? 3 : 1;
                    long warmStart = System.nanoTime();
                    int warmCalls = 0;
                    while (System.nanoTime() - warmStart < 60_000_000L / scale || warmCalls < 20) {
                        check(reader.read(data, file), length);
                        warmCalls++;
                    }
                    calls.put(entry.getKey(), (int) Math.max(3,
                            20_000_000L / scale * warmCalls / (System.nanoTime() - warmStart)));
                    // Steady-state allocation: the least of several warmed calls (a call may also load a class).
                    long least = Long.MAX_VALUE;
                    for (int call = 0; call < 5; call++) {
                        long before = threads.getCurrentThreadAllocatedBytes();
                        check(reader.read(data, file), length);
                        least = Math.min(least, threads.getCurrentThreadAllocatedBytes() - before);
                    }
                    bytes.put(entry.getKey(), new long[] {least});
                    perSecond.put(entry.getKey(), new ArrayList<>());
                }
                // Interleaved: every run times each reader once, after a collection, so that heap growth
                // and collections fall on all of them alike; every other run in reverse order, so that no
                // reader always follows another. Many short blocks: a median of nine 20 ms blocks (default
                // mode) shrugs off the machine's hiccups better than five of 50 ms did.
                List<Map.Entry<String, Reader>> order = new ArrayList<>(READERS.entrySet());
                for (int run = 0; run < 3 * lab.mode.runs; run++) {
                    for (Map.Entry<String, Reader> entry : order.reversed()) {
                        System.gc();
                        int n = calls.get(entry.getKey());
                        long t0 = System.nanoTime();
                        for (int call = 0; call < n; call++) {
                            check(entry.getValue().read(data, file), length);
                        }
                        perSecond.get(entry.getKey()).add(n * 1e9 / (System.nanoTime() - t0));
                    }
                    order = order.reversed();
                }
                Map<String, Stats> ops = new LinkedHashMap<>();
                perSecond.forEach((name, values) -> ops.put(name, Stats.of(values)));
                memory.put(length, bytes);
                speed.put(length, ops);
                Map<String, Pairs> pairs = new LinkedHashMap<>();
                for (String kind : KINDS) {
                    pairs.put(kind, pairedRatios(perSecond.get(ours(kind)), perSecond.get(jdk(kind))));
                }
                ratios.put(length, pairs);
                addRows(length, placement, bytes, ops);
                lab.stepDone();
            }
        } finally {
            Files.deleteIfExists(dir.resolve("data"));
            Files.deleteIfExists(dir);
        }
        lab.clearProgress();
        print(memory, speed, ratios, placement);
        findings(memory, ratios);
    }

    /**
     * Runs every reader on a small, a medium and a large input, round and round, before anything is
     * timed: each reader then has every path it takes by length (a file below and above the native
     * provider's small-file bound, one and several windows) profiled and compiled, so that no length
     * pays for a path first taken there (a deoptimisation and recompilation cost ours 0.84x at the
     * first length past the bound in a run without this).
     */
    private void warmUp(Path dir) throws IOException {
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
        long until = System.nanoTime() + (lab.mode == LabRun.Mode.QUICK ? 150_000_000L : 600_000_000L);
        try {
            while (System.nanoTime() < until) {
                for (int i = 0; i < lengths.length; i++) {
                    for (Reader reader : READERS.values()) {
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

    private static void check(byte[] read, int length) throws IOException {
        if (read.length != length) {
            throw new IOException("read " + read.length + " bytes, expected " + length);
        }
    }

    private void addRows(int length, String placement, Map<String, long[]> bytes, Map<String, Stats> ops) {
        boolean inThread = length <= 262145;
        lab.rows.add(new Row(NAME, "N_old (thread's formula)", "memory", placement, "bytes", exact(nOld(length)), length,
                inThread ? nOld(length) : Double.NaN, false, false, false));
        lab.rows.add(new Row(NAME, "N_new (thread's formula)", "memory", placement, "bytes", exact(nNew(length)), length,
                inThread ? nNew(length) : Double.NaN, false, false, false));
        for (String name : READERS.keySet()) {
            boolean ours = name.startsWith("wirespeed");
            String transport = name.endsWith("(file)") ? "file" : "stream";
            lab.rows.add(new Row(NAME, name, transport, placement, "bytes", exact(bytes.get(name)[0]), length, Double.NaN,
                    ours, false, false));
            lab.rows.add(new Row(NAME, name, transport, placement, "ops/s", ops.get(name), length, Double.NaN, ours, false,
                    false));
        }
    }

    private static Stats exact(double value) {
        return new Stats(value, value, value, 1);
    }

    /**
     * Ours against the JDK, block by block: the two blocks of a run ran next to each other, so the
     * machine's drift cancels in their ratio.
     *
     * @param ratio the statistics of ours / JDK over the runs
     * @param faster in how many runs ours was at least as fast
     */
    record Pairs(Stats ratio, int faster) {
        /**
         * {@return whether the runs show ours slower: a one-sided sign test at 5% over {@code lengths}
         * lengths} With ours and the JDK equally fast, each run is a coin toss; ours is shown slower
         * only when so few runs favour it that a fair coin would give as few at most one time in
         * {@code 20 * lengths} (Bonferroni: the claim is about every length at once, so that 5% is the
         * chance of a false alarm anywhere among them). Nine runs and 19 lengths: none ahead; nine runs
         * at one length: at most 1; three runs, as in {@code --quick}: never.
         *
         * @param lengths how many lengths the claim covers
         */
        boolean showsSlower(int lengths) {
            int runs = ratio.count();
            double atMost = 0;
            double choose = 1; // C(runs, i)
            for (int i = 0; i <= faster; i++) {
                atMost += choose / Math.pow(2, runs);
                choose = choose * (runs - i) / (i + 1);
            }
            return atMost <= 0.05 / lengths;
        }
    }

    /** {@return ours / JDK run by run} */
    static Pairs pairedRatios(List<Double> ours, List<Double> jdk) {
        List<Double> ratios = new ArrayList<>();
        int faster = 0;
        for (int run = 0; run < ours.size(); run++) {
            double ratio = ours.get(run) / jdk.get(run);
            ratios.add(ratio);
            faster += ratio >= 1 ? 1 : 0;
        }
        return new Pairs(Stats.of(ratios), faster);
    }

    private static String ratio(Pairs pairs) {
        Stats ratio = pairs.ratio();
        return String.format(Locale.ROOT, "%.2fx (%.2f-%.2f)", ratio.median(), ratio.min(), ratio.max());
    }

    private static String jdk(String kind) {
        return kind.equals("stream") ? "JDK readAllBytes (stream)" : "JDK Files.readAllBytes (file)";
    }

    private static String ours(String kind) {
        return "wirespeed ReadAll (" + kind + ")";
    }

    private void print(Map<Integer, Map<String, long[]>> memory, Map<Integer, Map<String, Stats>> speed,
            Map<Integer, Map<String, Pairs>> ratios, String placement) {
        var out = lab.out;
        out.println();
        out.printf(Locale.ROOT, "readall: bytes allocated per call (B = 8192 in the thread's formulas), %s%n", placement);
        out.printf(Locale.ROOT, "%10s %12s %12s %14s %14s %14s %14s%n", "length", "N_old", "N_new", "JDK stream",
                "ours stream", "JDK file", "ours file");
        for (Map.Entry<Integer, Map<String, long[]>> entry : memory.entrySet()) {
            long l = entry.getKey();
            List<long[]> v = new ArrayList<>(entry.getValue().values());
            out.printf(Locale.ROOT, "%10d %12d %12d %14d %14d %14d %14d%n", l, nOld(l), nNew(l), v.get(0)[0], v.get(1)[0],
                    v.get(2)[0], v.get(3)[0]);
        }
        out.printf(Locale.ROOT, "readall: calls per second, median of %d interleaved blocks of ~20 ms; ours / JDK: median of"
                + " the blocks' paired ratios (min-max)%n", 3 * lab.mode.runs);
        out.printf(Locale.ROOT, "%10s %12s %12s %18s %12s %12s %18s%n", "length", "JDK stream", "ours stream", "ours / JDK",
                "JDK file", "ours file", "ours / JDK");
        for (Map.Entry<Integer, Map<String, Stats>> entry : speed.entrySet()) {
            Map<String, Stats> v = entry.getValue();
            Map<String, Pairs> r = ratios.get(entry.getKey());
            out.printf(Locale.ROOT, "%10d %12.0f %12.0f %18s %12.0f %12.0f %18s%n", entry.getKey(), v.get(jdk("stream")).median(),
                    v.get(ours("stream")).median(), ratio(r.get("stream")), v.get(jdk("file")).median(),
                    v.get(ours("file")).median(), ratio(r.get("file")));
        }
        out.printf(Locale.ROOT, "ours file: ReadAll.readAll(Path) read with %s%s%n", ReadAll.fileReads(),
                ReadAll.fileReads().equals(new LinuxFileReads().name()) ? ""
                        : " (the native provider: " + LinuxFileReads.support() + ")");
        out.flush();
    }

    private void findings(Map<Integer, Map<String, long[]>> memory, Map<Integer, Map<String, Pairs>> ratios) {
        for (String kind : KINDS) {
            String jdk = jdk(kind);
            String ours = ours(kind);
            List<String> worse = new ArrayList<>();
            List<String> slower = new ArrayList<>();
            List<String> level = new ArrayList<>();
            double worstSpeed = Double.MAX_VALUE;
            for (int length : memory.keySet()) {
                if (memory.get(length).get(ours)[0] > memory.get(length).get(jdk)[0]) {
                    worse.add(length + ": " + memory.get(length).get(ours)[0] + " > " + memory.get(length).get(jdk)[0]);
                }
                Pairs pairs = ratios.get(length).get(kind);
                double ratio = pairs.ratio().median();
                worstSpeed = Math.min(worstSpeed, ratio);
                String figure = String.format(Locale.ROOT, "%d: %.2fx (ours ahead in %d of %d runs)", length, ratio,
                        pairs.faster(), pairs.ratio().count());
                if (pairs.showsSlower(memory.size())) {
                    slower.add(figure);
                } else if (ratio < 1) {
                    level.add(figure);
                }
            }
            lab.findings.add(new Finding("target: wirespeed's readAll allocates no more than JDK 25's at every length ("
                    + kind + ")", worse.isEmpty(), worse.isEmpty() ? "every length: ours <= JDK" : String.join("; ", worse)));
            // "At least as fast" fails where the runs show ours slower (a sign test); a median below 1x
            // that they cannot tell from a coin toss is reported as level, with its figures.
            String figures = String.format(Locale.ROOT, "worst median paired ratio ours / JDK %.2fx", worstSpeed);
            if (!slower.isEmpty()) {
                figures += "; slower (sign test, 5% over all " + memory.size() + " lengths) at " + String.join(", ", slower);
            }
            if (!level.isEmpty()) {
                figures += "; below 1x but level within this machine's noise (not shown slower) at "
                        + String.join(", ", level);
            }
            lab.findings.add(new Finding("target: wirespeed's readAll is at least as fast as JDK 25's at every length ("
                    + kind + ")", slower.isEmpty(), figures));
        }
        List<String> over = new ArrayList<>();
        for (int length : memory.keySet()) {
            long allocated = memory.get(length).get(ours("file"))[0];
            if (allocated > length + 16 * 1024) {
                over.add(length + ": " + allocated);
            }
        }
        lab.findings.add(new Finding("target: reading a file of known size allocates at most length + 16 KiB",
                over.isEmpty(), over.isEmpty() ? "every length" : String.join("; ", over)));
    }
}
