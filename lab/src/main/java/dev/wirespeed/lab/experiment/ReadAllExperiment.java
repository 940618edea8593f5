package dev.wirespeed.lab.experiment;

import dev.wirespeed.io.ReadAll;
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
    /** The buffer size B of the thread's formulas. */
    private static final long B = 8192;

    /** One way of reading everything. */
    @FunctionalInterface
    interface Reader {
        byte[] read(byte[] data, Path file) throws IOException;
    }

    static final Map<String, Reader> READERS = new LinkedHashMap<>();

    static {
        READERS.put("JDK readAllBytes (stream)", (data, file) -> stream(data).readAllBytes());
        READERS.put("wirespeed ReadAll (stream)", (data, file) -> ReadAll.readAll(stream(data)));
        READERS.put("JDK Files.readAllBytes (file)", (data, file) -> Files.readAllBytes(file));
        READERS.put("wirespeed ReadAll (file)", (data, file) -> ReadAll.readAll(file));
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
        try {
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
                // and collections fall on all of them alike.
                // Many short interleaved blocks: a median of nine 20 ms blocks (default mode) shrugs off the
                // machine's hiccups better than five of 50 ms did.
                for (int run = 0; run < 3 * lab.mode.runs; run++) {
                    for (Map.Entry<String, Reader> entry : READERS.entrySet()) {
                        System.gc();
                        int n = calls.get(entry.getKey());
                        long t0 = System.nanoTime();
                        for (int call = 0; call < n; call++) {
                            check(entry.getValue().read(data, file), length);
                        }
                        perSecond.get(entry.getKey()).add(n * 1e9 / (System.nanoTime() - t0));
                    }
                }
                Map<String, Stats> ops = new LinkedHashMap<>();
                perSecond.forEach((name, values) -> ops.put(name, Stats.of(values)));
                memory.put(length, bytes);
                speed.put(length, ops);
                addRows(length, placement, bytes, ops);
                lab.stepDone();
            }
        } finally {
            Files.deleteIfExists(dir.resolve("data"));
            Files.deleteIfExists(dir);
        }
        lab.clearProgress();
        print(memory, speed, placement);
        findings(memory, speed);
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

    private void print(Map<Integer, Map<String, long[]>> memory, Map<Integer, Map<String, Stats>> speed, String placement) {
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
        out.printf(Locale.ROOT, "readall: calls per second, median of %d interleaved blocks of ~20 ms%n", 3 * lab.mode.runs);
        out.printf(Locale.ROOT, "%10s %14s %14s %14s %14s%n", "length", "JDK stream", "ours stream", "JDK file", "ours file");
        for (Map.Entry<Integer, Map<String, Stats>> entry : speed.entrySet()) {
            List<Stats> v = new ArrayList<>(entry.getValue().values());
            out.printf(Locale.ROOT, "%10d %14.0f %14.0f %14.0f %14.0f%n", entry.getKey(), v.get(0).median(),
                    v.get(1).median(), v.get(2).median(), v.get(3).median());
        }
        out.flush();
    }

    private void findings(Map<Integer, Map<String, long[]>> memory, Map<Integer, Map<String, Stats>> speed) {
        for (String kind : List.of("stream", "file")) {
            String jdk = kind.equals("stream") ? "JDK readAllBytes (stream)" : "JDK Files.readAllBytes (file)";
            String ours = "wirespeed ReadAll (" + kind + ")";
            List<String> worse = new ArrayList<>();
            List<String> slower = new ArrayList<>();
            double worstSpeed = Double.MAX_VALUE;
            for (int length : memory.keySet()) {
                if (memory.get(length).get(ours)[0] > memory.get(length).get(jdk)[0]) {
                    worse.add(length + ": " + memory.get(length).get(ours)[0] + " > " + memory.get(length).get(jdk)[0]);
                }
                double ratio = speed.get(length).get(ours).median() / speed.get(length).get(jdk).median();
                worstSpeed = Math.min(worstSpeed, ratio);
                if (ratio < 1) {
                    slower.add(String.format(Locale.ROOT, "%d: %.2fx", length, ratio));
                }
            }
            lab.findings.add(new Finding("target: wirespeed's readAll allocates no more than JDK 25's at every length ("
                    + kind + ")", worse.isEmpty(), worse.isEmpty() ? "every length: ours <= JDK" : String.join("; ", worse)));
            lab.findings.add(new Finding("target: wirespeed's readAll is at least as fast as JDK 25's at every length ("
                    + kind + ")", slower.isEmpty(), String.format(Locale.ROOT, "worst ratio ours / JDK %.2fx%s", worstSpeed,
                            slower.isEmpty() ? "" : "; below 1x at " + String.join(", ", slower))));
        }
        List<String> over = new ArrayList<>();
        for (int length : memory.keySet()) {
            long allocated = memory.get(length).get("wirespeed ReadAll (file)")[0];
            if (allocated > length + 16 * 1024) {
                over.add(length + ": " + allocated);
            }
        }
        lab.findings.add(new Finding("target: reading a file of known size allocates at most length + 16 KiB",
                over.isEmpty(), over.isEmpty() ? "every length" : String.join("; ", over)));
    }
}
