package loopbench

// BaseProtocol is what every protocol implements: asyncio's BaseProtocol.
// The transport calls these methods on the loop's goroutine.
type BaseProtocol interface {
	// ConnectionMade is called once the connection is set up, on the
	// iteration after it was accepted or connected.
	ConnectionMade(t *Transport)
	// ConnectionLost is called once, when the connection is closed: err is
	// nil after Close or a clean end of stream, else what broke it.
	ConnectionLost(err error)
	// PauseWriting is called when the transport's write buffer goes over
	// its high-water mark, ResumeWriting when it drains to the low one.
	PauseWriting()
	ResumeWriting()
}

// Protocol receives data as the transport reads it: asyncio's Protocol.
type Protocol interface {
	BaseProtocol
	// DataReceived is called with the bytes read. The slice is the loop's
	// read buffer: it is valid only during the call.
	DataReceived(data []byte)
	// EOFReceived is called when the peer closed its side. Returning false
	// closes the transport; true keeps it open for writing (half-close).
	EOFReceived() bool
}

// BufferedProtocol reads into a buffer it owns, with no copy and no
// allocation per read: asyncio's BufferedProtocol.
type BufferedProtocol interface {
	BaseProtocol
	// GetBuffer returns the buffer the next read fills (at least one
	// byte); sizeHint is how much the transport would like to read.
	GetBuffer(sizeHint int) []byte
	// BufferUpdated is called after a read put n bytes into the buffer.
	BufferUpdated(n int)
	EOFReceived() bool
}

// ProtocolBase implements every protocol method as a no-op (EOFReceived
// returns false: close on end of stream). Embed it and override what you
// need.
type ProtocolBase struct{}

// ConnectionMade does nothing.
func (ProtocolBase) ConnectionMade(*Transport) {}

// ConnectionLost does nothing.
func (ProtocolBase) ConnectionLost(error) {}

// PauseWriting does nothing.
func (ProtocolBase) PauseWriting() {}

// ResumeWriting does nothing.
func (ProtocolBase) ResumeWriting() {}

// DataReceived does nothing.
func (ProtocolBase) DataReceived([]byte) {}

// EOFReceived returns false: the transport closes.
func (ProtocolBase) EOFReceived() bool { return false }
