package dev.wirespeed.contenders;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The buffering article's input: a CSV file of {@code 0,1,2,3,4,5,6,7,8,9} lines, 10,000 of them in
 * the article, as many as wanted here.
 */
public final class ArticleCsv {
    /** Lines of the article's file. */
    public static final int ARTICLE_LINES = 10_000;

    private static final byte[] LINE = "0,1,2,3,4,5,6,7,8,9\n".getBytes(StandardCharsets.US_ASCII);

    /** Bytes per line, its newline included. */
    public static final int LINE_LENGTH = LINE.length;

    /** Lines written per call of {@code write}. */
    private static final int BLOCK_LINES = 4096;

    private ArticleCsv() {
    }

    /**
     * Writes {@code lines} lines to {@code file}, replacing what it held.
     *
     * @param file the file
     * @param lines the lines, {@code >= 0}
     * @return {@code file}
     * @throws IOException if writing fails
     */
    public static Path write(Path file, long lines) throws IOException {
        if (lines < 0) {
            throw new IllegalArgumentException("lines=" + lines + " must be >= 0");
        }
        byte[] block = new byte[LINE_LENGTH * BLOCK_LINES];
        for (int i = 0; i < BLOCK_LINES; i++) {
            System.arraycopy(LINE, 0, block, i * LINE_LENGTH, LINE_LENGTH);
        }
        try (OutputStream out = Files.newOutputStream(file)) {
            for (long written = 0; written < lines; written += BLOCK_LINES) {
                out.write(block, 0, (int) Math.min(BLOCK_LINES, lines - written) * LINE_LENGTH);
            }
        }
        return file;
    }
}
