//! Screencast frames to one animated PNG (APNG): plays in every current browser and image
//! viewer, needs no codec download, and a viewer without APNG support shows the first frame.
//!
//! Input: the PNG frames `Page.screencastFrame` delivered, each with its timestamp (seconds).
//! Every frame is decoded to 8-bit RGBA; the canvas is the largest frame and a smaller one (the
//! screencast's frames can be a little smaller than the final screenshot) is drawn at its top
//! left on white. A frame's
//! delay is the time until the next one, clamped to [`MIN_DELAY_MS`]..[`MAX_DELAY_MS`]; the last
//! frame shows for [`MAX_DELAY_MS`]. Leading frames of a single colour (before the first paint)
//! are dropped unless no other frame is left. The file loops forever and is written atomically.

use std::path::Path;

use crate::BrowserError;

/// Shortest frame delay: faster than this only wastes bytes.
const MIN_DELAY_MS: u16 = 40;
/// Longest frame delay, also the last frame's.
const MAX_DELAY_MS: u16 = 2000;

/// One captured frame.
#[derive(Debug, Clone)]
pub struct Frame {
    pub png: Vec<u8>,
    pub timestamp: f64,
}

fn decode(png_bytes: &[u8]) -> Result<(u32, u32, Vec<u8>), String> {
    let mut reader = png::Decoder::new(std::io::Cursor::new(png_bytes))
        .read_info()
        .map_err(|e| e.to_string())?;
    let size = reader
        .output_buffer_size()
        .ok_or("the frame is too large to decode")?;
    let mut buf = vec![0; size];
    let info = reader.next_frame(&mut buf).map_err(|e| e.to_string())?;
    buf.truncate(info.buffer_size());
    let rgba = match (info.color_type, info.bit_depth) {
        (png::ColorType::Rgba, png::BitDepth::Eight) => buf,
        (png::ColorType::Rgb, png::BitDepth::Eight) => buf
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        (c, d) => return Err(format!("unsupported frame format {c:?}/{d:?}")),
    };
    Ok((info.width, info.height, rgba))
}

/// `rgba` (`w`×`h`) on a white `cw`×`ch` canvas, top left (pure).
fn pad(rgba: &[u8], w: u32, h: u32, cw: u32, ch: u32) -> Vec<u8> {
    let (w, h, cw, ch) = (w as usize, h as usize, cw as usize, ch as usize);
    let mut out = vec![255u8; cw * ch * 4];
    for y in 0..h.min(ch) {
        let n = w.min(cw) * 4;
        out[y * cw * 4..y * cw * 4 + n].copy_from_slice(&rgba[y * w * 4..y * w * 4 + n]);
    }
    out
}

/// Writes `frames` to `path` as an animated PNG; returns how many frames it holds.
pub fn write_apng(frames: &[Frame], path: &Path) -> Result<usize, BrowserError> {
    let mut decoded = Vec::new();
    for f in frames {
        let (w, h, rgba) = decode(&f.png).map_err(BrowserError::Video)?;
        decoded.push((w, h, rgba, f.timestamp));
    }
    // Blank frames before the first paint would be the still image a viewer without APNG
    // support shows: leading frames of one colour go, unless nothing else is left.
    let blank = |rgba: &[u8]| rgba.chunks_exact(4).all(|p| p == &rgba[..4]);
    while decoded.len() > 1 && blank(&decoded[0].2) {
        decoded.remove(0);
    }
    if decoded.is_empty() {
        return Err(BrowserError::Video("no frame was captured".into()));
    }
    let width = decoded.iter().map(|d| d.0).max().unwrap_or(1);
    let height = decoded.iter().map(|d| d.1).max().unwrap_or(1);
    for d in &mut decoded {
        if (d.0, d.1) != (width, height) {
            d.2 = pad(&d.2, d.0, d.1, width, height);
        }
    }
    let count = u32::try_from(decoded.len()).map_err(|e| BrowserError::Video(e.to_string()))?;
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, width, height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_animated(count, 0)
            .map_err(|e| BrowserError::Video(e.to_string()))?;
        let mut w = enc
            .write_header()
            .map_err(|e| BrowserError::Video(e.to_string()))?;
        for (i, (_, _, rgba, ts)) in decoded.iter().enumerate() {
            let delay = decoded.get(i + 1).map_or(MAX_DELAY_MS, |next| {
                let ms = ((next.3 - ts) * 1000.0)
                    .clamp(f64::from(MIN_DELAY_MS), f64::from(MAX_DELAY_MS));
                #[expect(
                    clippy::cast_possible_truncation,
                    clippy::cast_sign_loss,
                    reason = "clamped to MIN_DELAY_MS..=MAX_DELAY_MS just above"
                )]
                let ms = ms as u16;
                ms
            });
            w.set_frame_delay(delay, 1000)
                .map_err(|e| BrowserError::Video(e.to_string()))?;
            w.write_image_data(rgba)
                .map_err(|e| BrowserError::Video(e.to_string()))?;
        }
        w.finish().map_err(|e| BrowserError::Video(e.to_string()))?;
    }
    loki_core::fs::write_atomic(path, &out)?;
    Ok(decoded.len())
}
