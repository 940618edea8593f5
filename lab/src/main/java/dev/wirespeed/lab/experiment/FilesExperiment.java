package dev.wirespeed.lab.experiment;

import dev.wirespeed.io.ByteCounts;
import dev.wirespeed.io.ReadAll;
import java.io.BufferedInputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * "Improving Java IO Performance: Buffering Techniques" (2018) on this machine: counting the newlines
 * of the article's CSV (10,000 lines of {@code 0,1,...,9}) and of a large file of the same lines,
 * cached, with the article's four strategies, the library's channel and mapped scans, and
 * {@code wc -l} as the ceiling. Runs in the lab's own JVM, on one pinned CPU.
 */
final class FilesExperiment {
    static final String NAME = "files";
    private static final byte[] LINE = "0,1,2,3,4,5,6,7,8,9\n".getBytes(StandardCharsets.US_ASCII);
    private static final int CSV_LINES = 10_000;

    /** The article's ms/op on its 200,000-byte CSV. */
    static final Map<String, Double> PUBLISHED_MS = Map.of("no buffering", 170.308, "BufferedInputStream", 0.693,
            "manual 8 KiB buffer", 0.148, "whole-file buffer", 0.188);

    /** One way of counting newlines in a file. */
    @FunctionalInterface
    interface Counter {
        long count(Path file) throws IOException, InterruptedException;
    }

    private final LabRun lab;

    FilesExperiment(LabRun lab) {
        this.lab = lab;
    }

    /** {@return the large file's size for this mode} */
    long bigSize() {
        return switch (lab.mode) {
            case QUICK -> 32L << 20;
            case DEFAULT -> 128L << 20;
            case FULL -> 1L << 30;
        };
    }

    Map<String, Counter> counters(long size) {
        Map<String, Counter> counters = new LinkedHashMap<>();
        if (size <= 1 << 20) { // one call per byte: seconds per pass on the large file, and nothing new to learn
            counters.put("no buffering", file -> {
                try (InputStream in = new FileInputStream(file.toFile())) {
                    return perByte(in);
                }
            });
            counters.put("BufferedInputStream", file -> {
                try (InputStream in = new BufferedInputStream(new FileInputStream(file.toFile()))) {
                    return perByte(in);
                }
            });
        }
        counters.put("manual 8 KiB buffer", file -> manual(file, 8192));
        counters.put("whole-file buffer", file -> manual(file, (int) Math.min(Files.size(file), Integer.MAX_VALUE - 8)));
        counters.put("wirespeed ByteCounts.count(Path)", file -> ByteCounts.count(file, (byte) '\n'));
        counters.put("wirespeed ByteCounts (map, then count)", file -> {
            try (Arena arena = Arena.ofConfined()) {
                return ByteCounts.count(ReadAll.mapFile(file, arena), (byte) '\n');
            }
        });
        if (Tools.has("wc")) {
            counters.put("wc -l", FilesExperiment::wc);
        }
        return counters;
    }

    private static long perByte(InputStream in) throws IOException {
        long count = 0;
        int b;
        while ((b = in.read()) != -1) {
            if (b == '\n') {
                count++;
            }
        }
        return count;
    }

    private static long manual(Path file, int bufferSize) throws IOException {
        byte[] buffer = new byte[bufferSize];
        long count = 0;
        try (InputStream in = new FileInputStream(file.toFile())) {
            int n;
            while ((n = in.read(buffer)) != -1) {
                for (int i = 0; i < n; i++) {
                    if (buffer[i] == '\n') {
                        count++;
                    }
                }
            }
        }
        return count;
    }

    private static long wc(Path file) throws IOException, InterruptedException {
        Process wc = new ProcessBuilder("wc", "-l", file.toString()).start();
        String out = new String(wc.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
        if (!wc.waitFor(5, TimeUnit.MINUTES) || wc.exitValue() != 0) {
            throw new IOException("wc -l failed: " + out);
        }
        return Long.parseLong(out.split("\\s+")[0]);
    }

    static Path writeLines(Path file, long lines) throws IOException {
        byte[] block = new byte[LINE.length * 4096];
        for (int i = 0; i < 4096; i++) {
            System.arraycopy(LINE, 0, block, i * LINE.length, LINE.length);
        }
        try (OutputStream out = Files.newOutputStream(file)) {
            for (long written = 0; written < lines; written += 4096) {
                out.write(block, 0, (int) Math.min(4096, lines - written) * LINE.length);
            }
        }
        return file;
    }

    void run() throws IOException, InterruptedException {
        Path dir = memoryBackedDirectory();
        String placement = InProcess.pin(lab);
        try {
            Path csv = writeLines(dir.resolve("simple-csv-file.csv"), CSV_LINES);
            long bigLines = bigSize() / LINE.length;
            Path big = writeLines(dir.resolve("lines.csv"), bigLines);
            Map<String, Map<String, Stats>> results = new LinkedHashMap<>();
            for (Path file : List.of(csv, big)) {
                long size = Files.size(file);
                long lines = size / LINE.length;
                Map<String, Stats> byCase = new LinkedHashMap<>();
                results.put(label(file, size), byCase);
                for (Map.Entry<String, Counter> entry : counters(size).entrySet()) {
                    lab.progress("files " + label(file, size) + ": " + entry.getKey());
                    Stats mb = measure(entry.getValue(), file, size, lines);
                    lab.stepDone();
                    byCase.put(entry.getKey(), mb);
                    Double ms = file == csv ? PUBLISHED_MS.get(entry.getKey()) : null;
                    lab.rows.add(new Row(NAME, entry.getKey(), "file", placement, "MB/s", mb, (int) Math.min(size,
                            Integer.MAX_VALUE), ms == null ? Double.NaN : size / 1e3 / ms, entry.getKey().startsWith("wirespeed"),
                            entry.getKey().equals("wc -l"), false));
                }
            }
            lab.clearProgress();
            print(results, placement);
            findings(results);
        } finally {
            try (var files = Files.list(dir)) {
                for (Path file : files.toList()) {
                    Files.deleteIfExists(file);
                }
            }
            Files.deleteIfExists(dir);
        }
    }

    /**
     * A folder for the test files on tmpfs ({@code /dev/shm}) where there is one with room: "cached"
     * must mean in memory, and a VM that reclaims page cache (this project's runs DAMON reclaim) evicts
     * an ordinary cached file between runs. Elsewhere the temp folder, with a note.
     */
    private Path memoryBackedDirectory() throws IOException {
        Path shm = Path.of("/dev/shm");
        if (Files.isDirectory(shm) && Files.isWritable(shm)
                && Files.getFileStore(shm).getUsableSpace() > 2 * (bigSize() + (1 << 20))) {
            lab.notes.add("files: the test files are on tmpfs (/dev/shm), so they stay in memory");
            return Files.createTempDirectory(shm, "wirespeed-files-");
        }
        lab.notes.add("files: no tmpfs with room; the test files are in " + System.getProperty("java.io.tmpdir")
                + " and may be evicted from the page cache between runs");
        return Files.createTempDirectory("wirespeed-files-");
    }

    int steps() {
        return counters(1).size() + counters(bigSize()).size();
    }

    private static String label(Path file, long size) {
        return size < 1 << 20 ? "article CSV, " + size + " bytes" : String.format(Locale.ROOT, "%d MiB of the same lines",
                size >> 20);
    }

    /**
     * MB/s of one counter: warmed up for ~150 ms of calls (100 with {@code --quick}; a small file's count
     * is then compiled, as JMH would have it), then several timed runs of at least ~100 ms of work each,
     * sized by the warmed pace.
     */
    private Stats measure(Counter counter, Path file, long size, long lines) throws IOException, InterruptedException {
        long warmNanos = lab.mode == LabRun.Mode.QUICK ? 100_000_000L : 150_000_000L;
        long warmStart = System.nanoTime();
        long once;
        do {
            once = time(counter, file, lines);
        } while (System.nanoTime() - warmStart < warmNanos);
        int reps = (int) Math.max(1, Math.min(100_000, 100_000_000L / Math.max(1, once)));
        List<Double> mb = new ArrayList<>();
        for (int run = 0; run < lab.mode.runs + 2; run++) {
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
            throw new IOException("counted " + counted + " newlines in " + file + ", expected " + lines);
        }
        return nanos;
    }

    private void print(Map<String, Map<String, Stats>> results, String placement) {
        var out = lab.out;
        out.println();
        out.printf(Locale.ROOT, "files: counting newlines in a cached file, %s; median of %d runs [min-max]%n", placement,
                lab.mode.runs + 2);
        for (Map.Entry<String, Map<String, Stats>> file : results.entrySet()) {
            out.printf(Locale.ROOT, "  %s%n  %-40s %10s %22s %10s%n", file.getKey(), "case", "MB/s", "[min-max]",
                    "article");
            for (Map.Entry<String, Stats> entry : file.getValue().entrySet()) {
                Stats mb = entry.getValue();
                Double ms = file.getKey().startsWith("article") ? PUBLISHED_MS.get(entry.getKey()) : null;
                out.printf(Locale.ROOT, "  %-40s %10.1f [%9.1f-%9.1f] %10s%n", entry.getKey(), mb.median(), mb.min(),
                        mb.max(), ms == null ? "-" : String.format(Locale.ROOT, "%.1f", 200_000 / 1e3 / ms));
            }
        }
        out.flush();
    }

    private void findings(Map<String, Map<String, Stats>> results) {
        Map<String, Stats> csv = results.values().iterator().next();
        Map<String, Stats> big = new ArrayList<>(results.values()).get(1);
        ratio("buffering speeds byte-by-byte reading up many times (BufferedInputStream / no buffering >= 10x, CSV)",
                csv, "BufferedInputStream", "no buffering", 10, 170.308 / 0.693, false);
        ratio("a manual 8 KiB buffer beats BufferedInputStream's read() per byte (> 1x, CSV)", csv, "manual 8 KiB buffer",
                "BufferedInputStream", 1, 0.693 / 0.148, false);
        ratio("a whole-file buffer is no faster than 8 KiB (whole-file / 8 KiB <= 1.05x, CSV)", csv, "whole-file buffer",
                "manual 8 KiB buffer", 1.05, 0.148 / 0.188, true);
        if (big.containsKey("wc -l")) {
            ratio("target: wirespeed's newline count is at least as fast as wc -l (large file, >= 1x)", big,
                    "wirespeed ByteCounts.count(Path)", "wc -l", 1, Double.NaN, false);
        }
    }

    private void ratio(String claim, Map<String, Stats> cells, String a, String b, double threshold, double published,
            boolean atMost) {
        double ratio = cells.get(a).median() / cells.get(b).median();
        boolean holds = atMost ? ratio <= threshold : threshold == 1 ? ratio >= 1 : ratio >= threshold;
        lab.findings.add(new Finding(claim + " (files)", holds, String.format(Locale.ROOT,
                "%s %.1f MB/s / %s %.1f MB/s = %.2fx%s", a, cells.get(a).median(), b, cells.get(b).median(), ratio,
                Double.isNaN(published) ? "" : String.format(Locale.ROOT, "; article %.2fx", published))));
    }
}
