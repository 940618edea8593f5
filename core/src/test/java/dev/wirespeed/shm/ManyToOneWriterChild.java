package dev.wirespeed.shm;

import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * A child process for {@link ManyToOneRingTest}, writing into the many-to-one ring its second argument
 * names, by its first:
 *
 * <ul>
 *   <li>{@code write FILE ID FRAMES SEED}: writer {@code ID}'s {@link WriterStream} of {@code FRAMES} frames,
 *       waiting while the ring is full; then closes the ring;
 *   <li>{@code claim FILE}: claims a frame of type 7 and 100 bytes, fills half its body with 0x5A, prints
 *       {@code claimed} and waits, the claim open, until its standard input ends or it is killed.
 * </ul>
 */
public final class ManyToOneWriterChild {
    private ManyToOneWriterChild() {
    }

    /** Writes the frames, or holds a claim. @param args the mode, the ring's file, and the mode's values */
    public static void main(String[] args) throws Exception {
        try (ManyToOneRing ring = ManyToOneRing.open(Path.of(args[1]))) {
            ManyToOneWriter writer = ring.writer();
            if (args[0].equals("claim")) {
                ByteBuffer claim = writer.tryClaim(7, 100);
                if (claim == null) {
                    throw new IllegalStateException("no room for a claim in " + ring);
                }
                for (int j = 0; j < 50; j++) {
                    claim.put((byte) 0x5A);
                }
                System.out.println("claimed");
                System.out.flush();
                while (System.in.read() >= 0) {
                    // the claim stays open until the parent ends this process
                }
                return;
            }
            int id = Integer.parseInt(args[2]);
            int frames = Integer.parseInt(args[3]);
            WriterStream stream = new WriterStream(id, Long.parseLong(args[4]), ring.maxFrameLength());
            ByteBuffer body = ByteBuffer.allocate(ring.maxFrameLength());
            for (int seq = 0; seq < frames; seq++) {
                int length = stream.nextLength();
                body.clear();
                stream.fill(body, seq, length);
                body.flip();
                while (!writer.offer(stream.type(seq), body)) {
                    Thread.yield();
                }
            }
        }
    }
}
