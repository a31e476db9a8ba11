SELECT mleval_build_info();
