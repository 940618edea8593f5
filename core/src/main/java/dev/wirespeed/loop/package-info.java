/**
 * Many connections on few threads: {@link dev.wirespeed.loop.FrameServer} accepts connections onto
 * event loops, reads their frames into pooled buffers and hands each to a
 * {@link dev.wirespeed.loop.ConnectionHandler}; {@link dev.wirespeed.loop.Connection} queues the
 * replies, with backpressure per connection. The wire format is {@link dev.wirespeed.frame}'s.
 */
package dev.wirespeed.loop;
