// FlickDisplay: output backends, compositor and content.
