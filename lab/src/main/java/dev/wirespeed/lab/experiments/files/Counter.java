package dev.wirespeed.lab.experiments.files;

import dev.wirespeed.io.ByteCounts;
import dev.wirespeed.io.ReadAll;
import dev.wirespeed.lab.result.Role;
import java.io.BufferedInputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** One way of counting the newlines of a file: the article's four, the library's two, and {@code wc -l}. */
enum Counter {
    /** {@code FileInputStream.read()} per byte. */
    NO_BUFFERING("no buffering", Role.ARTICLE, 170.308) {
        @Override
        long count(Path file) throws IOException {
            try (InputStream in = new FileInputStream(file.toFile())) {
                return countPerByte(in);
            }
        }
    },
    /** {@code BufferedInputStream.read()} per byte. */
    BUFFERED_INPUT_STREAM("BufferedInputStream", Role.ARTICLE, 0.693) {
        @Override
        long count(Path file) throws IOException {
            try (InputStream in = new BufferedInputStream(new FileInputStream(file.toFile()))) {
                return countPerByte(in);
            }
        }
    },
    /** A manual 8 KiB array, scanned in a loop. */
    MANUAL_8K("manual 8 KiB buffer", Role.ARTICLE, 0.148) {
        @Override
        long count(Path file) throws IOException {
            return manual(file, 8192);
        }
    },
    /** The whole file in one array. */
    WHOLE_FILE("whole-file buffer", Role.ARTICLE, 0.188) {
        @Override
        long count(Path file) throws IOException {
            return manual(file, (int) Math.min(Files.size(file), Integer.MAX_VALUE - 8));
        }
    },
    /** The library's count of a file. */
    COUNT_PATH("wirespeed ByteCounts.count(Path)", Role.LIBRARY, Double.NaN) {
        @Override
        long count(Path file) throws IOException {
            return ByteCounts.count(file, (byte) '\n');
        }
    },
    /** The library's count of a mapped file. */
    COUNT_MAPPED("wirespeed ByteCounts (map, then count)", Role.LIBRARY, Double.NaN) {
        @Override
        long count(Path file) throws IOException {
            try (Arena arena = Arena.ofConfined()) {
                return ByteCounts.count(ReadAll.mapFile(file, arena), (byte) '\n');
            }
        }
    },
    /** {@code wc -l}: the ceiling. */
    WC("wc -l", Role.CEILING, Double.NaN) {
        @Override
        long count(Path file) throws IOException, InterruptedException {
            Process wc = new ProcessBuilder("wc", "-l", file.toString()).start();
            String out = new String(wc.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
            if (!wc.waitFor(5, TimeUnit.MINUTES) || wc.exitValue() != 0) {
                throw new IOException("wc -l failed: " + out);
            }
            return Long.parseLong(out.split("\\s+")[0]);
        }
    };

    private final String label;
    private final Role role;
    private final double publishedMs;

    Counter(String label, Role role, double publishedMs) {
        this.label = label;
        this.role = role;
        this.publishedMs = publishedMs;
    }

    /** {@return the row's name} */
    String label() {
        return label;
    }

    /** {@return whose code counts} */
    Role role() {
        return role;
    }

    /** {@return the article's ms per count of its 200,000-byte CSV, or NaN where it has none} */
    double publishedMs() {
        return publishedMs;
    }

    /** {@return whether it reads a byte per call: seconds per pass on a large file, nothing new to learn} */
    boolean perByte() {
        return this == NO_BUFFERING || this == BUFFERED_INPUT_STREAM;
    }

    /** {@return the newlines in {@code file}} */
    abstract long count(Path file) throws IOException, InterruptedException;

    private static long countPerByte(InputStream in) throws IOException {
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
}
