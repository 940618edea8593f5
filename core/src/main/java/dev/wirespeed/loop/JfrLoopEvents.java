package dev.wirespeed.loop;

import dev.wirespeed.loop.internal.LoopStats;
import java.io.IOException;
import java.net.SocketAddress;
import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Period;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * The JFR events of a {@link FrameServer} or {@link FrameClient} built with {@code jfrEvents(true)}:
 * connection opened and closed, protocol error, accept failed, and, once a second, its totals on each loop. Events are
 * created only at those moments, never per frame; a recording decides which it keeps.
 */
final class JfrLoopEvents implements LoopEvents {
    private final Runnable periodic;

    JfrLoopEvents(Owner owner, LoopGroup group) {
        this.periodic = () -> {
            for (int i = 0; i < group.loopCount(); i++) {
                EventLoop loop = group.loop(i);
                LoopStats stats = owner.stats(i);
                loopStatistics(i, loop.connectionCount(), stats.framesRead(), stats.bytesRead(), stats.bytesWritten(),
                        loop.pooledBytes());
            }
        };
        FlightRecorder.addPeriodicEvent(LoopStatisticsEvent.class, periodic);
    }

    @Override
    public void opened(long id, SocketAddress remote, int loop) {
        ConnectionOpenedEvent e = new ConnectionOpenedEvent();
        if (e.shouldCommit()) {
            e.connection = id;
            e.remoteAddress = String.valueOf(remote);
            e.loop = loop;
            e.commit();
        }
    }

    @Override
    public void protocolError(long id, long offset, Throwable error) {
        ProtocolErrorEvent e = new ProtocolErrorEvent();
        if (e.shouldCommit()) {
            e.connection = id;
            e.offset = offset;
            e.message = error.getMessage();
            e.commit();
        }
    }

    @Override
    public void closed(long id, Throwable cause, long frames, long bytesRead, long bytesWritten) {
        ConnectionClosedEvent e = new ConnectionClosedEvent();
        if (e.shouldCommit()) {
            e.connection = id;
            e.cause = cause == null ? null : cause.getClass().getName() + ": " + cause.getMessage();
            e.frames = frames;
            e.bytesRead = bytesRead;
            e.bytesWritten = bytesWritten;
            e.commit();
        }
    }

    @Override
    public void acceptFailed(SocketAddress local, IOException cause, long pauseNanos) {
        AcceptFailedEvent e = new AcceptFailedEvent();
        if (e.shouldCommit()) {
            e.localAddress = String.valueOf(local);
            e.cause = cause.getClass().getName() + ": " + cause.getMessage();
            e.pause = pauseNanos;
            e.commit();
        }
    }

    @Override
    public void loopFailed(int loop, IOException failure) {
        LoopFailedEvent e = new LoopFailedEvent();
        if (e.shouldCommit()) {
            e.loop = loop;
            e.failure = failure.getMessage();
            e.commit();
        }
    }

    @Override
    public void stopped() {
        FlightRecorder.removePeriodicEvent(periodic);
    }

    /** Commits one loop's totals, on JFR's periodic thread: the figures may lag. */
    private static void loopStatistics(int loop, int connections, long frames, long bytesRead, long bytesWritten,
            long pooledBytes) {
        LoopStatisticsEvent e = new LoopStatisticsEvent();
        e.loop = loop;
        e.connections = connections;
        e.frames = frames;
        e.bytesRead = bytesRead;
        e.bytesWritten = bytesWritten;
        e.pooledBytes = pooledBytes;
        e.commit();
    }

    @Name("dev.wirespeed.ConnectionOpened")
    @Label("Connection Opened")
    @Category({"wirespeed", "Frame Server"})
    @Description("A connection was accepted onto a loop, or connected from one")
    @StackTrace(false)
    static final class ConnectionOpenedEvent extends Event {
        @Label("Connection")
        long connection;
        @Label("Remote Address")
        String remoteAddress;
        @Label("Loop")
        int loop;
    }

    @Name("dev.wirespeed.ConnectionClosed")
    @Label("Connection Closed")
    @Category({"wirespeed", "Frame Server"})
    @Description("A connection closed, with why and what it carried")
    @StackTrace(false)
    static final class ConnectionClosedEvent extends Event {
        @Label("Connection")
        long connection;
        @Label("Cause")
        @Description("Null after a clean close")
        String cause;
        @Label("Frames Read")
        long frames;
        @Label("Bytes Read")
        @DataAmount
        long bytesRead;
        @Label("Bytes Written")
        @DataAmount
        long bytesWritten;
    }

    @Name("dev.wirespeed.ProtocolError")
    @Label("Protocol Error")
    @Category({"wirespeed", "Frame Server"})
    @Description("A peer broke the wire format; its connection is closed")
    @StackTrace(false)
    static final class ProtocolErrorEvent extends Event {
        @Label("Connection")
        long connection;
        @Label("Stream Offset")
        @Description("Of the first byte of the offending frame")
        long offset;
        @Label("Message")
        String message;
    }

    @Name("dev.wirespeed.AcceptFailed")
    @Label("Accept Failed")
    @Category({"wirespeed", "Frame Server"})
    @Description("A server's accept failed (out of descriptors, say): its listener is not watched for a pause")
    @StackTrace(false)
    static final class AcceptFailedEvent extends Event {
        @Label("Local Address")
        String localAddress;
        @Label("Cause")
        @Description("The listener's exception: for a native transport, the call and its errno")
        String cause;
        @Label("Pause")
        @Description("How long the listener is not watched: doubles while accepting fails")
        @Timespan(Timespan.NANOSECONDS)
        long pause;
    }

    @Name("dev.wirespeed.LoopFailed")
    @Label("Loop Failed")
    @Category({"wirespeed", "Frame Server"})
    @Description("A loop failed outside the serving of any one connection: every loop of its group ends, closing "
            + "its connections with the failure as the cause, and the server stops listening")
    @StackTrace(false)
    static final class LoopFailedEvent extends Event {
        @Label("Loop")
        int loop;
        @Label("Failure")
        String failure;
    }

    @Name("dev.wirespeed.LoopStatistics")
    @Label("Loop Statistics")
    @Category({"wirespeed", "Frame Server"})
    @Description("One loop's totals for one server or client since it started; connections and pooled bytes "
            + "are the loop's, of every server and client on it")
    @Period("1 s")
    @StackTrace(false)
    static final class LoopStatisticsEvent extends Event {
        @Label("Loop")
        int loop;
        @Label("Connections")
        int connections;
        @Label("Frames Read")
        long frames;
        @Label("Bytes Read")
        @DataAmount
        long bytesRead;
        @Label("Bytes Written")
        @DataAmount
        long bytesWritten;
        @Label("Pooled Bytes")
        @DataAmount
        long pooledBytes;
    }
}
