package loadresult

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// HdrHistogram's V2 encoding: a compressed cookie and length, then a
// zlib stream of a 40-byte header (cookie, payload length, normalizing
// offset, significant digits, lowest and highest trackable value,
// conversion ratio) and the counts as ZigZag LEB128 varints, a negative
// one standing for that many empty counts.
const (
	compressedCookie = 0x1c849304
	payloadCookie    = 0x1c849303
	headerSize       = 40
	maxVarint        = 9
)

// countsLen and seriesCountsLen are the number of counts of a load
// histogram and of an interval's: every decoded histogram has exactly
// these bounds, so decoding allocates this much whatever its input says.
var (
	countsLen       = len(NewHistogram().Export().Counts)
	seriesCountsLen = len(NewSeriesHistogram().Export().Counts)
)

// encodeHist encodes h as HdrHistogram's V2 compressed base64.
func encodeHist(h *hdrhistogram.Histogram) (string, error) {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	return string(b), err
}

// decodeHist decodes a run histogram load wrote (HistDigits).
func decodeHist(s string) (*hdrhistogram.Histogram, error) { return decodeHistAt(s, HistDigits) }

// decodeHistAt decodes a histogram load wrote at digits significant
// digits (HistDigits or SeriesDigits). It checks what
// hdrhistogram.Decode trusts: every length, the bounds (which size the
// counts it allocates), each count's index, and the size the zlib stream
// inflates to, so hostile input is an error, never a panic nor an
// allocation it sizes.
func decodeHistAt(s string, digits int32) (*hdrhistogram.Histogram, error) {
	n := countsLen
	if digits == SeriesDigits {
		n = seriesCountsLen
	}
	if s == "" {
		return nil, errors.New("missing")
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, errors.New("not base64")
	}
	if len(raw) < 8 || binary.BigEndian.Uint32(raw)&^0xf0 != compressedCookie {
		return nil, errors.New("not an HdrHistogram V2 compressed encoding")
	}
	size := binary.BigEndian.Uint32(raw[4:])
	if uint64(size) > uint64(len(raw)-8) {
		return nil, fmt.Errorf("says %d compressed bytes, holds %d", size, len(raw)-8)
	}
	z, err := zlib.NewReader(bytes.NewReader(raw[8 : 8+size]))
	if err != nil {
		return nil, fmt.Errorf("compressed contents: %v", err)
	}
	limit := int64(headerSize + n*maxVarint)
	plain, err := io.ReadAll(io.LimitReader(z, limit+1))
	if err != nil {
		return nil, fmt.Errorf("compressed contents: %v", err)
	}
	if int64(len(plain)) > limit {
		return nil, fmt.Errorf("inflates to more than the %d bytes a load histogram takes at most", limit)
	}
	counts, err := decodePayload(plain, digits, n)
	if err != nil {
		return nil, err
	}
	return hdrhistogram.Import(&hdrhistogram.Snapshot{LowestTrackableValue: HistLowest, HighestTrackableValue: HistHighest,
		SignificantFigures: int64(digits), Counts: counts}), nil
}

// decodePayload checks the inflated header against the bounds of a load
// histogram at want digits, of n counts, and decodes its counts.
func decodePayload(p []byte, want int32, n int) ([]int64, error) {
	if len(p) < headerSize || binary.BigEndian.Uint32(p)&^0xf0 != payloadCookie {
		return nil, errors.New("no V2 histogram header in the compressed contents")
	}
	if n := binary.BigEndian.Uint32(p[4:]); uint64(n) != uint64(len(p)-headerSize) {
		return nil, fmt.Errorf("says %d payload bytes, holds %d", n, len(p)-headerSize)
	}
	digits := int32(binary.BigEndian.Uint32(p[12:]))
	lowest, highest := int64(binary.BigEndian.Uint64(p[16:])), int64(binary.BigEndian.Uint64(p[24:]))
	if digits != want || lowest != HistLowest || highest != HistHighest {
		return nil, fmt.Errorf("bounds %d to %d at %d digits, want a load histogram's: %d ns to %d ns at %d digits",
			lowest, highest, digits, HistLowest, HistHighest, want)
	}
	counts := make([]int64, n)
	var total int64
	idx := 0
	for rest := p[headerSize:]; len(rest) > 0; {
		v, size, err := zigzag(rest)
		if err != nil {
			return nil, err
		}
		rest = rest[size:]
		if v < 0 {
			if v == math.MinInt64 || -v > int64(n-idx) {
				return nil, fmt.Errorf("a run of %d empty counts past the histogram's %d", uint64(-v), n)
			}
			idx += int(-v)
			continue
		}
		if idx >= n {
			return nil, fmt.Errorf("more than the histogram's %d counts", n)
		}
		if total += v; total < 0 || total > 1<<53 {
			return nil, errors.New("counts add up to more than 2⁵³")
		}
		counts[idx] = v
		idx++
	}
	return counts, nil
}

// zigzag reads one ZigZag LEB128 varint as HdrHistogram writes it: up to
// nine bytes, the ninth contributing all its eight bits.
func zigzag(b []byte) (int64, int, error) {
	var u uint64
	i := 0
	for ; i < maxVarint-1; i++ {
		if i == len(b) {
			return 0, 0, errors.New("truncated count")
		}
		u |= uint64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			return int64(u>>1) ^ -int64(u&1), i + 1, nil
		}
	}
	if i == len(b) {
		return 0, 0, errors.New("truncated count")
	}
	u |= uint64(b[i]) << 56
	return int64(u>>1) ^ -int64(u&1), i + 1, nil
}
