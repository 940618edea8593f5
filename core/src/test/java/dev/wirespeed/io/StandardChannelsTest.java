package dev.wirespeed.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import org.junit.jupiter.api.Test;

/** The standard channels are new open channels on each call; none is closed here, which would close the descriptor. */
class StandardChannelsTest {

    @Test
    void eachCallGivesANewOpenChannelOverTheDescriptor() throws IOException {
        FileChannel in = StandardChannels.stdin();
        FileChannel out = StandardChannels.stdout();
        assertTrue(in.isOpen());
        assertTrue(out.isOpen());
        assertNotSame(in, StandardChannels.stdin());
        assertNotSame(out, StandardChannels.stdout());
        assertEquals(0, out.write(ByteBuffer.allocate(0)), "an empty write to standard output");
    }
}
