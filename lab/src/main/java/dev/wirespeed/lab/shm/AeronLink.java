package dev.wirespeed.lab.shm;

import io.aeron.Aeron;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.BufferClaim;
import io.aeron.logbuffer.FragmentHandler;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * {@link ShmImpl#AERON}: Aeron's IPC channel ({@code aeron:ipc}), a stream per direction, through a media
 * driver that the owner runs embedded in its process (one conductor thread for the driver's work,
 * Agrona's backoff when idle), in the directory {@code BASE-aeron}; the other side's clients connect to
 * it there. {@link Layout#ONE_TO_ONE}: the writer's an exclusive publication, a log of its own; {@link
 * Layout#MANY_TO_ONE}: each writer's a concurrent publication of the stream, which the driver gives every
 * client of the same stream as one log, their frames ordered by Aeron's claim of its tail, as a
 * many-to-one ring's. A message holds the frame: its type (4 bytes), then its body; an empty message marks
 * a one-to-one writer's close (a many-to-one writer's close marks nothing). The owner's driver and its
 * directory go when it closes.
 */
final class AeronLink implements ShmLink {
    /** The channel of every stream: IPC, through the driver's shared memory. */
    static final String CHANNEL = "aeron:ipc";
    private final Path base;
    private final Sleep sleep;
    private final Layout layout;
    private final MediaDriver driver;
    private final Aeron aeron;
    private final List<AutoCloseable> ends = new ArrayList<>();

    AeronLink(Path base, boolean owner, Sleep sleep, Layout layout) {
        new Waits(sleep, "aeron"); // refuses a sleep it does not take
        this.base = base;
        this.sleep = sleep;
        this.layout = layout;
        String dir = directory(base).toString();
        this.driver = owner ? MediaDriver.launch(new MediaDriver.Context().aeronDirectoryName(dir)
                .threadingMode(ThreadingMode.SHARED).sharedIdleStrategy(new BackoffIdleStrategy())
                .dirDeleteOnStart(true).dirDeleteOnShutdown(true)) : null;
        try {
            this.aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(dir)
                    .driverTimeoutMs(ShmFiles.WAIT_MILLIS).errorHandler(AeronLink::onClientError));
        } catch (RuntimeException e) {
            if (driver != null) {
                driver.close();
            }
            throw e;
        }
    }

    /**
     * Says what went wrong in the client's conductor thread. Aeron's default handler ends the JVM where the
     * driver is gone, which a side whose owner closed first meets as it closes in turn, and which in one JVM
     * (the tests run both sides in one) would end the other side with it: here the client closes, and the
     * link's ends find their publication or subscription closed.
     */
    private static void onClientError(Throwable e) {
        System.err.println("aeron client: " + e);
    }

    /** {@return the media driver's directory of a link at {@code base}} */
    static Path directory(Path base) {
        return base.resolveSibling(base.getFileName() + "-aeron");
    }

    /** {@return the stream of the direction {@code name}} */
    private static int stream(String name) {
        return switch (name) {
            case "" -> 10;
            case "ping" -> 11;
            case "pong" -> 12;
            default -> 100 + Math.floorMod(name.hashCode(), 1_000_000);
        };
    }

    @Override
    public Outbound outbound(String name) {
        Publication publication = layout == Layout.ONE_TO_ONE ? aeron.addExclusivePublication(CHANNEL, stream(name))
                : aeron.addPublication(CHANNEL, stream(name));
        ends.add(publication);
        BufferClaim claim = new BufferClaim();
        int max = publication.maxPayloadLength() - 4;
        return new Outbound() {
            private boolean connected;

            @Override
            public boolean offer(int type, ByteBuffer body) {
                int length = body.remaining();
                if (length > max) {
                    throw new IllegalArgumentException("frame body length=" + length + " is over maxFrameLength="
                            + max + " (a message unfragmented) of aeron stream " + stream(name) + " at " + base);
                }
                long position = publication.tryClaim(4 + length, claim);
                if (position < 0) {
                    return refused(position);
                }
                connected = true;
                claim.buffer().putInt(claim.offset(), type);
                claim.buffer().putBytes(claim.offset() + 4, body, body.position(), length);
                claim.commit();
                body.position(body.limit());
                return true;
            }

            private boolean refused(long position) {
                if (position == Publication.CLOSED || position == Publication.MAX_POSITION_EXCEEDED) {
                    throw new IllegalStateException("aeron stream " + stream(name) + " at " + base + " refused a "
                            + "frame: " + Publication.errorString(position));
                }
                return false; // not connected yet, back pressure, or the driver's turn
            }

            @Override
            public boolean readerGone() {
                return connected && !publication.isConnected();
            }

            @Override
            public void close() {
                if (layout == Layout.MANY_TO_ONE) {
                    publication.close(); // the other writers write on: the reader is never told
                    return;
                }
                UnsafeBuffer none = new UnsafeBuffer(new byte[0]);
                long deadline = System.nanoTime() + ShmFiles.WAIT_MILLIS * 1_000_000;
                while (publication.offer(none, 0, 0) < 0 && publication.isConnected() && System.nanoTime() - deadline < 0) {
                    Thread.yield();
                }
                // The reader reads to the end and leaves: until then the stream (and the owner's driver) stays.
                while (publication.isConnected() && System.nanoTime() - deadline < 0) {
                    Thread.yield();
                }
                publication.close();
            }
        };
    }

    @Override
    public Inbound inbound(String name) {
        Subscription subscription = aeron.addSubscription(CHANNEL, stream(name));
        ends.add(subscription);
        Waits waits = new Waits(sleep, "aeron");
        return new CallbackInbound(waits) {
            private ByteBuffer under;
            private ByteBuffer view;
            private final FragmentHandler onFragment = this::onFragment;

            private void onFragment(DirectBuffer buffer, int offset, int length, io.aeron.logbuffer.Header header) {
                if (length == 0) {
                    end();
                    return;
                }
                ByteBuffer bytes = buffer.byteBuffer();
                if (bytes != under) { // a term of the log: a view of each, made once
                    under = bytes;
                    view = bytes.asReadOnlyBuffer();
                }
                int start = buffer.wrapAdjustment() + offset;
                view.limit(start + length).position(start + 4);
                deliver(buffer.getInt(offset), view);
            }

            @Override
            void read(int limit) {
                subscription.poll(onFragment, limit);
            }

            @Override
            public void close() {
                subscription.close();
            }
        };
    }

    @Override
    public int maxFrameLength() {
        // One unfragmented message: the driver's IPC MTU less Aeron's data header and the type.
        return io.aeron.driver.Configuration.ipcMtuLength() - io.aeron.protocol.DataHeaderFlyweight.HEADER_LENGTH - 4;
    }

    @Override
    public void close() {
        for (AutoCloseable end : ends) {
            try {
                end.close();
            } catch (Exception e) {
                // closing twice, or a driver already gone: nothing left to release
            }
        }
        aeron.close();
        if (driver != null) {
            driver.close();
        }
    }
}
