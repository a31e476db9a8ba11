SELECT mleval_version();
