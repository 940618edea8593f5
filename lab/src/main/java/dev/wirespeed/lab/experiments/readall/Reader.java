package dev.wirespeed.lab.experiments.readall;

import dev.wirespeed.io.ReadAll;
import dev.wirespeed.lab.result.Medium;
import dev.wirespeed.lab.result.Role;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** One way of reading everything: the JDK's and ours, from a stream of unknown size or a file. */
enum Reader {
    /** {@code InputStream.readAllBytes()} on a stream that does not override it. */
    JDK_STREAM("JDK readAllBytes (stream)", Role.JDK, Medium.STREAM),
    /** {@code ReadAll.readAll(InputStream)}. */
    OURS_STREAM("wirespeed ReadAll (stream)", Role.LIBRARY, Medium.STREAM),
    /** {@code Files.readAllBytes(Path)}. */
    JDK_FILE("JDK Files.readAllBytes (file)", Role.JDK, Medium.FILE),
    /** {@code ReadAll.readAll(Path)}. */
    OURS_FILE("wirespeed ReadAll (file)", Role.LIBRARY, Medium.FILE);

    private final String label;
    private final Role role;
    private final Medium medium;

    Reader(String label, Role role, Medium medium) {
        this.label = label;
        this.role = role;
        this.medium = medium;
    }

    String label() {
        return label;
    }

    Role role() {
        return role;
    }

    Medium medium() {
        return medium;
    }

    /** {@return the JDK's reader of a medium} */
    static Reader jdk(Medium medium) {
        return medium == Medium.STREAM ? JDK_STREAM : JDK_FILE;
    }

    /** {@return our reader of a medium} */
    static Reader ours(Medium medium) {
        return medium == Medium.STREAM ? OURS_STREAM : OURS_FILE;
    }

    /** {@return every byte of {@code data} (a stream over it) or of {@code file}, which holds the same bytes} */
    byte[] read(byte[] data, Path file) throws IOException {
        return switch (this) {
            case JDK_STREAM -> stream(data).readAllBytes();
            case OURS_STREAM -> ReadAll.readAll(stream(data));
            case JDK_FILE -> Files.readAllBytes(file);
            case OURS_FILE -> ReadAll.readAll(file);
        };
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
}
