print("flickctl")
