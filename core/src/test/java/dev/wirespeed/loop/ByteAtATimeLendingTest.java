package dev.wirespeed.loop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.wirespeed.testing.Seed;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A connection whose bytes the transport lends a byte at a time, as a TLS peer's records of a byte
 * each come out of the engine: one of the loop's turns takes at most {@value FrameAssembler#MAX_LENDS}
 * lends of it, not a chunk's worth of bytes one by one (65,536 decryptions for a peer that pays 22
 * bytes each), and its frames arrive whole all the same.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ByteAtATimeLendingTest {
    @RegisterExtension
    static final Seed SEED = Seed.fromPropertyOrNew();

    @Test
    void aTurnTakesAtMostSixtyFourLendsOfAConnectionWhoseBytesComeOneALend() throws Exception {
        LendingTestTransport transport = new LendingTestTransport(SEED.value(), true);
        try (FrameServer server = FrameServer.builder((c, type, body) -> c.writeFrame(type, body)).transport(transport)
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).start();
                SocketChannel peer = SocketChannel.open(server.localAddresses().getFirst())) {
            SplittableRandom random = new SplittableRandom(SEED.value());
            int frames = 20;
            byte[][] bodies = new byte[frames][1_000];
            ByteBuffer out = ByteBuffer.allocate(frames * 1_008);
            for (int i = 0; i < frames; i++) {
                random.nextBytes(bodies[i]);
                out.putInt(i).putInt(1_000).put(bodies[i]);
            }
            out.flip();
            while (out.hasRemaining()) {
                peer.write(out); // 20,160 bytes at once: hundreds of turns of 64 lends
            }
            for (int i = 0; i < frames; i++) {
                ByteBuffer back = ByteBuffer.allocate(1_008);
                while (back.hasRemaining()) {
                    if (peer.read(back) < 0) {
                        throw new AssertionError("the server closed after " + i + " echoes");
                    }
                }
                assertEquals(i, back.getInt(0), "type of echo " + i);
                assertArrayEquals(bodies[i], java.util.Arrays.copyOfRange(back.array(), 8, 1_008), "body of echo " + i);
            }
            assertEquals(FrameAssembler.MAX_LENDS, transport.mostLendsInATurn(), "the most lends of the connection in "
                    + "one turn, of 20,160 bytes lent a byte at a time");
            assertNull(server.failure());
        }
    }
}
