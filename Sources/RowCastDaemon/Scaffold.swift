// scaffold: replaced as the target is written
