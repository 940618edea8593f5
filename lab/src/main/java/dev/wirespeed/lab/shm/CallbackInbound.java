package dev.wirespeed.lab.shm;

import dev.wirespeed.frame.FrameHandler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * An {@link Inbound} over a library that reads by calling back (Agrona's ring buffer, Aeron's
 * subscription): its callback hands each frame on through {@link #deliver}, or marks the writer's end
 * through {@link #end}; a handler's {@link IOException} crosses the library's callback unchecked and
 * comes out of {@link #poll} as it was thrown.
 */
abstract class CallbackInbound implements Inbound {
    private final Waits waits;
    private FrameHandler handler;
    private int frames;
    private boolean ended;

    CallbackInbound(Waits waits) {
        this.waits = waits;
    }

    /** Has the library call back for {@code limit} frames at most. */
    abstract void read(int limit);

    /** From the callback: the writer's end-of-stream record came. */
    final void end() {
        ended = true;
    }

    /** From the callback: the frame of {@code type} whose body is {@code body}'s position to limit. */
    final void deliver(int type, ByteBuffer body) {
        try {
            handler.onFrame(type, body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        frames++;
    }

    @Override
    public final int poll(FrameHandler handler, int limit) throws IOException {
        if (ended) {
            return -1;
        }
        this.handler = handler;
        frames = 0;
        try {
            read(limit);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        return frames == 0 && ended ? -1 : frames;
    }

    @Override
    public final int await(FrameHandler handler, int limit, Duration timeout) throws IOException {
        return waits.await(this, handler, limit, timeout);
    }
}
