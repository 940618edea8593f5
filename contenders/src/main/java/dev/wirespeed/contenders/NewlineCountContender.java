package dev.wirespeed.contenders;

import dev.wirespeed.io.ByteCounts;
import dev.wirespeed.io.ReadAll;
import java.io.BufferedInputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One way of counting the newlines of a file: the buffering article's four and the library's two. The
 * lab's {@code files} experiment and the {@code NewlineCountStrategies} benchmark both measure these,
 * on {@link ArticleCsv} files.
 *
 * <p>Thread safety: the constants are immutable; each call reads on its own.
 */
public enum NewlineCountContender {
    /** {@code FileInputStream.read()} per byte: a system call per byte. */
    NO_BUFFERING {
        @Override
        public long count(Path file) throws IOException {
            try (InputStream in = new FileInputStream(file.toFile())) {
                return countPerByte(in);
            }
        }
    },
    /** {@code BufferedInputStream.read()} per byte. */
    BUFFERED_INPUT_STREAM {
        @Override
        public long count(Path file) throws IOException {
            try (InputStream in = new BufferedInputStream(new FileInputStream(file.toFile()))) {
                return countPerByte(in);
            }
        }
    },
    /** A manual 8 KiB array, scanned in a loop. */
    MANUAL_8K {
        @Override
        public long count(Path file) throws IOException {
            return manual(file, 8192);
        }
    },
    /** The whole file in one array (of one byte for an empty file, so that a read can see its end). */
    WHOLE_FILE {
        @Override
        public long count(Path file) throws IOException {
            return manual(file, Math.clamp(Files.size(file), 1, Integer.MAX_VALUE - 8));
        }
    },
    /** The library's count of a path: read below 1 MiB, mapped from 1 MiB on. */
    WIRESPEED_PATH {
        @Override
        public long count(Path file) throws IOException {
            return ByteCounts.count(file, (byte) '\n');
        }
    },
    /** The library's count of a mapping made for the call. */
    WIRESPEED_MAPPED {
        @Override
        public long count(Path file) throws IOException {
            try (Arena arena = Arena.ofConfined()) {
                return ByteCounts.count(ReadAll.mapFile(file, arena), (byte) '\n');
            }
        }
    };

    /**
     * {@return the newlines in {@code file}}
     *
     * @param file the file
     * @throws IOException if reading fails
     */
    public abstract long count(Path file) throws IOException;

    /** {@return whether it reads a byte per call: seconds per pass on a large file, nothing new to learn} */
    public boolean perByte() {
        return this == NO_BUFFERING || this == BUFFERED_INPUT_STREAM;
    }

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
