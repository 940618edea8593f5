package dev.wirespeed.shm;

import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * A child process for {@link SharedRingTest}: opens the ring its first argument names and writes its
 * second argument's count of frames (-1: until killed), frame {@code i} of type {@code i} with {@code i %
 * 300} bytes, each {@code i + j}, waiting while the ring is full; then closes the ring.
 */
public final class SharedRingWriterChild {
    private SharedRingWriterChild() {
    }

    /** Writes the frames. @param args the ring's file and the count of frames */
    public static void main(String[] args) throws Exception {
        try (SharedRing ring = SharedRing.open(Path.of(args[0]))) {
            RingWriter writer = ring.writer();
            long frames = Long.parseLong(args[1]);
            ByteBuffer body = ByteBuffer.allocate(300);
            for (long i = 0; frames < 0 || i < frames; i++) {
                int length = (int) (i % 300);
                body.clear().limit(length);
                for (int j = 0; j < length; j++) {
                    body.put(j, (byte) (i + j));
                }
                while (!writer.offer((int) i, body)) {
                    Thread.onSpinWait();
                }
            }
        }
    }
}
