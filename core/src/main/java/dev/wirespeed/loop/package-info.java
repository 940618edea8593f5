/**
 * Many connections on few threads: a {@link dev.wirespeed.loop.LoopGroup} is a set of event-loop
 * threads; a {@link dev.wirespeed.loop.FrameServer} accepts connections onto them and a {@link
 * dev.wirespeed.loop.FrameClient} connects from them, and both hand each frame read, into pooled
 * buffers, to a {@link dev.wirespeed.loop.ConnectionHandler} (or a block of frames to a {@link
 * dev.wirespeed.loop.BlockHandler}). A {@link dev.wirespeed.loop.Connection} queues the replies, with
 * backpressure per connection, and closes gracefully or at once. The wire format is {@link
 * dev.wirespeed.frame}'s; TLS is {@link dev.wirespeed.tls}'s; the loops reach their sockets through a
 * {@link dev.wirespeed.loop.spi.LoopTransport}, the JDK's {@code Selector} unless told otherwise.
 */
package dev.wirespeed.loop;
