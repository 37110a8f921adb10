// FlickDaemon: event loop, config, journal, control socket, state.
import CSystemd
import Logging
import TOMLKit
