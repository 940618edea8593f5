/**
 * The wire format: frames of a 4-byte type, a 4-byte big-endian length and a body.
 *
 * <pre>
 * offset  size    field
 * 0       4       type     opaque; shown as an unsigned 32-bit big-endian number
 * 4       4       length   signed 32-bit big-endian, 0 &lt;= length &lt;= maxFrameLength
 * 8       length  body
 * </pre>
 *
 * {@link dev.wirespeed.frame.FrameReader} hands frames to a {@link dev.wirespeed.frame.FrameHandler}
 * as zero-copy views and {@link dev.wirespeed.frame.FrameWriter} gathers them into large writes. Bad input is reported as {@link dev.wirespeed.frame.CorruptFrameException},
 * {@link dev.wirespeed.frame.FrameTooLongException} or
 * {@link dev.wirespeed.frame.TruncatedFrameException}, each with the stream offset of the first byte
 * of the offending frame.
 */
package dev.wirespeed.frame;
