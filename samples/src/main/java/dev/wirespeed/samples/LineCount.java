package dev.wirespeed.samples;

import dev.wirespeed.io.ByteCounts;
import dev.wirespeed.io.ChannelReader;
import dev.wirespeed.io.StandardChannels;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.Path;

/**
 * Counts the lines of files, or of standard input, as {@code wc -l} does: the newline bytes, eight at
 * a time.
 *
 * <pre>
 * LineCount [FILE...]
 * seq 1000 | java ... dev.wirespeed.samples.LineCount
 * </pre>
 *
 * A file is counted by {@link ByteCounts#count(Path, byte)}, which maps a large one and reads a small
 * one through a buffer freed before it returns; standard input, which may be a pipe, through a
 * {@link ChannelReader} that refills one direct buffer until the stream ends.
 */
public final class LineCount {
    private LineCount() {
    }

    /**
     * Prints the count of each file and, for more than one, their total; or the count of standard input.
     *
     * @param args {@code [FILE...]}
     * @throws IOException if a file cannot be read
     */
    public static void main(String[] args) throws IOException {
        count(args, StandardChannels.stdin(), System.out);
    }

    /** Counts as {@link #main} describes, reading {@code stdin} when there are no files, printing on {@code out}. */
    static void count(String[] files, ReadableByteChannel stdin, PrintStream out) throws IOException {
        if (files.length == 0) {
            // Not closed: the reader would close standard input with it.
            out.println(new ChannelReader(stdin).countToEnd((byte) '\n'));
            return;
        }
        long total = 0;
        for (String file : files) {
            long lines = ByteCounts.count(Path.of(file), (byte) '\n');
            total += lines;
            out.println(lines + " " + file);
        }
        if (files.length > 1) {
            out.println(total + " total");
        }
    }
}
