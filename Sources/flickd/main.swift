print("flickd")
