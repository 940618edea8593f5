package dev.wirespeed.lab.experiments.files;

import dev.wirespeed.contenders.NewlineCountContender;
import dev.wirespeed.lab.result.Role;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A row of the experiment: one way of counting the newlines of a file, the article's four and the
 * library's two ({@link NewlineCountContender}), and {@code wc -l}, as the tables name them.
 */
enum Counter {
    /** {@code FileInputStream.read()} per byte. */
    NO_BUFFERING("no buffering", Role.ARTICLE, 170.308, NewlineCountContender.NO_BUFFERING),
    /** {@code BufferedInputStream.read()} per byte. */
    BUFFERED_INPUT_STREAM("BufferedInputStream", Role.ARTICLE, 0.693, NewlineCountContender.BUFFERED_INPUT_STREAM),
    /** A manual 8 KiB array, scanned in a loop. */
    MANUAL_8K("manual 8 KiB buffer", Role.ARTICLE, 0.148, NewlineCountContender.MANUAL_8K),
    /** The whole file in one array. */
    WHOLE_FILE("whole-file buffer", Role.ARTICLE, 0.188, NewlineCountContender.WHOLE_FILE),
    /** The library's count of a file. */
    COUNT_PATH("wirespeed ByteCounts.count(Path)", Role.LIBRARY, Double.NaN, NewlineCountContender.WIRESPEED_PATH),
    /** The library's count of a mapped file. */
    COUNT_MAPPED("wirespeed ByteCounts (map, then count)", Role.LIBRARY, Double.NaN,
            NewlineCountContender.WIRESPEED_MAPPED),
    /** {@code wc -l}: the ceiling. */
    WC("wc -l", Role.CEILING, Double.NaN, null);

    private final String label;
    private final Role role;
    private final double publishedMs;
    private final NewlineCountContender contender;

    Counter(String label, Role role, double publishedMs, NewlineCountContender contender) {
        this.label = label;
        this.role = role;
        this.publishedMs = publishedMs;
        this.contender = contender;
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
        return contender != null && contender.perByte();
    }

    /** {@return the newlines in {@code file}} */
    long count(Path file) throws IOException, InterruptedException {
        return contender != null ? contender.count(file) : wc(file);
    }

    private static long wc(Path file) throws IOException, InterruptedException {
        Process wc = new ProcessBuilder("wc", "-l", file.toString()).start();
        String out = new String(wc.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
        if (!wc.waitFor(5, TimeUnit.MINUTES) || wc.exitValue() != 0) {
            throw new IOException("wc -l failed: " + out);
        }
        return Long.parseLong(out.split("\\s+")[0]);
    }
}
